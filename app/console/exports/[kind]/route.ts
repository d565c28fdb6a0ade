import { gate } from "@/server/console/action-guard";
import { download, isDownload } from "@/server/console/downloads";

/** A CSV download (an owner's): the same export the command writes, spreadsheet-safe, and an activity line. */
export async function GET(request: Request, { params }: { params: Promise<{ kind: string }> }) {
  const checked = await gate(request, { action: "export", role: "owner" });
  if (!checked.ok) return checked.answer;
  const { kind } = await params;
  const name = kind.replace(/\.csv$/, "");
  if (!isDownload(name)) return new Response("Not found.", { status: 404 });
  return download(checked.signed, name);
}
