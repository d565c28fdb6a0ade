import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The header names the framework for attackers and helps nobody else.
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
