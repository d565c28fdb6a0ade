// The framework floor: an empty App Router page, as create-next-app's shape
// without its font or CSS. The bench builds it on the project's own next,
// react and react-dom and measures it beside the site's pages.
export const metadata = { title: "Floor", description: "An empty Next.js App Router page." };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
