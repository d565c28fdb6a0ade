type StatListProps = {
  stats: readonly { value: string; label: string }[];
  className: string;
  itemClassName?: string;
  valueClassName: string;
  labelClassName: string;
};

/**
 * Figures with their labels. The label comes first for screen readers
 * ("hours saved: 8+") and is shown under the figure.
 */
export function StatList({ stats, className, itemClassName = "", valueClassName, labelClassName }: StatListProps) {
  return (
    <dl className={className}>
      {stats.map((stat) => (
        <div key={stat.label} className={`stat ${itemClassName}`}>
          <dt className={labelClassName}>{stat.label}</dt>
          <dd className={valueClassName}>{stat.value}</dd>
        </div>
      ))}
    </dl>
  );
}
