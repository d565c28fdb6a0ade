export default function Page() {
  return (
    <main>
      <h1>An empty Next.js page</h1>
    </main>
  );
}
