// Lucide's shapes as SVG markup, for the server rendering only: `#icon-markup` is an empty table in the browser's
// bundle (package.json "imports"), so no shape ships as JavaScript (components/ui/icon.tsx).
import {
  ArrowLeft,
  ArrowRight,
  BellRing,
  BookOpenText,
  CalendarCheck,
  ChefHat,
  CircleAlert,
  CircleCheck,
  Clock,
  FileSpreadsheet,
  HeartHandshake,
  LayoutDashboard,
  Menu,
  MessageCircleReply,
  MessageSquareText,
  MessagesSquare,
  Percent,
  ReceiptText,
  Rocket,
  ShieldAlert,
  Sparkles,
  Wallet,
  X,
  type IconNode,
} from "lucide";

const icons = {
  arrowLeft: ArrowLeft,
  arrowRight: ArrowRight,
  bellRing: BellRing,
  bookOpenText: BookOpenText,
  calendarCheck: CalendarCheck,
  chefHat: ChefHat,
  circleAlert: CircleAlert,
  circleCheck: CircleCheck,
  clock: Clock,
  fileSpreadsheet: FileSpreadsheet,
  heartHandshake: HeartHandshake,
  layoutDashboard: LayoutDashboard,
  menu: Menu,
  messageCircleReply: MessageCircleReply,
  messageSquareText: MessageSquareText,
  messagesSquare: MessagesSquare,
  percent: Percent,
  receiptText: ReceiptText,
  rocket: Rocket,
  shieldAlert: ShieldAlert,
  sparkles: Sparkles,
  wallet: Wallet,
  x: X,
} satisfies Record<string, IconNode>;

export type IconName = keyof typeof icons;

const escapeAttribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** One icon's shapes as markup: `<path d="…"></path>…`. */
export function shapesOf(node: IconNode): string {
  return node
    .map(([tag, attributes]) => {
      const written = Object.entries(attributes).map(([name, value]) => ` ${name}="${escapeAttribute(String(value))}"`);
      return `<${tag}${written.join("")}></${tag}>`;
    })
    .join("");
}

const iconMarkup: Partial<Record<IconName, string>> = Object.fromEntries(
  Object.entries(icons).map(([name, node]) => [name, shapesOf(node)]),
);
export default iconMarkup;
