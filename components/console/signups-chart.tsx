import { scaleBand, scaleLinear } from "d3-scale";

type Day = { day: string; count: number };

const width = 720;
const height = 220;
const margin = { top: 12, right: 12, bottom: 28, left: 40 };

/**
 * Sign-ups per day as bars drawn on the server (d3-scale's scales, no DOM, no script shipped), one a day, a day with
 * none marked on the axis; the same numbers as a table beside it, which is what a screen reader reads.
 */
export function SignupsChart({ days, title, zone }: { days: readonly Day[]; title: string; zone: string }) {
  const total = days.reduce((sum, day) => sum + day.count, 0);
  const peak = Math.max(1, ...days.map((day) => day.count));
  const x = scaleBand<string>()
    .domain(days.map((day) => day.day))
    .range([margin.left, width - margin.right])
    .padding(0.15);
  const y = scaleLinear()
    .domain([0, peak])
    .nice()
    .range([height - margin.bottom, margin.top]);
  const centre = (day: Day) => (x(day.day) ?? 0) + x.bandwidth() / 2;
  const ticks = y.ticks(4);
  const labelled = days.filter((_, index) => index % Math.ceil(days.length / 6) === 0);
  return (
    <figure className="mt-4">
      <figcaption className="font-semibold">
        {title}: {total} in all
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} className="mt-2 w-full max-w-3xl" aria-hidden="true" focusable="false">
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={margin.left} x2={width - margin.right} y1={y(tick)} y2={y(tick)} className="stroke-stone-300" />
            <text x={margin.left - 6} y={y(tick)} dy="0.32em" textAnchor="end" className="fill-stone-700 text-[11px]">
              {tick}
            </text>
          </g>
        ))}
        {days.map((day) =>
          day.count ? (
            <rect
              key={day.day}
              x={x(day.day)}
              y={y(day.count)}
              width={x.bandwidth()}
              height={y(0) - y(day.count)}
              className="fill-brand-700"
            />
          ) : (
            <rect
              key={day.day}
              x={x(day.day)}
              y={y(0) - 2}
              width={x.bandwidth()}
              height={2}
              className="fill-stone-400"
            />
          ),
        )}
        {labelled.map((day) => (
          <text key={day.day} x={centre(day)} y={height - 8} textAnchor="middle" className="fill-stone-700 text-[11px]">
            {day.day.slice(5)}
          </text>
        ))}
      </svg>
      <details className="mt-2">
        <summary className="cursor-pointer">The numbers, day by day</summary>
        <table className="mt-2 text-sm">
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col" className="pr-6 text-left">
                Day ({zone})
              </th>
              <th scope="col" className="text-right">
                Sign-ups
              </th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.day}>
                <td className="pr-6">{day.day}</td>
                <td className="text-right tabular-nums">{day.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
