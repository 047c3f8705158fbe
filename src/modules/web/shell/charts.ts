/**
 * Bar charts drawn on the server as SVG: no script, nothing for the CSP to allow ('self' and no inline
 * style: sizes are SVG attributes), and every chart also a table (`_bar-chart.eta`) for a screen reader
 * or anyone who would rather read the figures.
 */
export interface Bar {
  /** Under the bar (short: "Jan", "2024", "Mon", "★★★"). */
  label: string;
  value: number;
  /** The bar's full name in the table and its tooltip ("January 2024"); the label when absent. */
  name?: string;
}

export interface BarChartView {
  /** The chart's name, as its caption. */
  title: string;
  /** What the values count ("plays", "movies"): the table's column and the tooltips. */
  unit: string;
  /** The SVG's coordinate box; the CSS scales it to the width available. */
  width: number;
  height: number;
  /** The baseline's height above the bottom (room for the labels). */
  baseline: number;
  bars: {
    x: number;
    y: number;
    width: number;
    height: number;
    labelX: number;
    value: number;
    label: string;
    name: string;
  }[];
  /** Horizontal guide lines with their values. */
  ticks: { y: number; value: number }[];
  /** A sentence that sums up the chart for the SVG's accessible name. */
  summary: string;
  empty: boolean;
  /** Show every label, or every n-th (many bars in little room). */
  labelEvery: number;
}

const WIDTH = 320;
const MAX_SLOT = 64;
const HEIGHT = 170;
const LABEL_ROOM = 22;
const TOP_ROOM = 14;

/** A "nice" step for guide lines: 1, 2 or 5 times a power of ten, about 4 lines up to `max`. */
function niceStep(max: number): number {
  const rough = max / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return Math.max(1, nice * power);
}

export function barChart(title: string, unit: string, bars: readonly Bar[]): BarChartView {
  // A fixed box, scaled to the card's width: the labels keep one size whatever the number of bars.
  const width = WIDTH;
  const slot = Math.min(MAX_SLOT, width / Math.max(1, bars.length));
  // Few bars: centred.
  const left = (width - slot * bars.length) / 2;
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const step = niceStep(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const plot = HEIGHT - LABEL_ROOM - TOP_ROOM;
  const baseline = HEIGHT - LABEL_ROOM;
  const gap = Math.max(2, Math.round(slot * 0.2));
  const ticks = [];
  for (let value = step; value <= top; value += step) {
    ticks.push({ y: round(baseline - (value / top) * plot), value });
  }
  const busiest = bars.reduce<Bar | null>((best, bar) => (bar.value > (best?.value ?? 0) ? bar : best), null);
  const total = bars.reduce((sum, bar) => sum + bar.value, 0);
  return {
    title,
    unit,
    width,
    height: HEIGHT,
    baseline,
    bars: bars.map((bar, i) => {
      const height = round((bar.value / top) * plot);
      return {
        x: round(left + i * slot + gap / 2),
        y: round(baseline - height),
        width: round(slot - gap),
        height,
        labelX: round(left + i * slot + slot / 2),
        value: bar.value,
        label: bar.label,
        name: bar.name ?? bar.label,
      };
    }),
    ticks,
    summary:
      busiest === null
        ? `${title}: none yet.`
        : `${title}: ${total} ${unit} in all; the most, ${busiest.value}, in ${busiest.name ?? busiest.label}.`,
    empty: busiest === null,
    labelEvery: Math.max(1, Math.ceil((bars.length * 26) / width)),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** `2024-03` as a bar: "Mar", named "March 2024". */
export const monthBar = (month: string, value: number): Bar => {
  const index = Number(month.slice(5, 7)) - 1;
  return { label: MONTHS[index]!, name: `${MONTH_NAMES[index]} ${month.slice(0, 4)}`, value };
};

/** ISO weekday 1-7 as a bar: "Mon", named "Monday". */
export const weekdayBar = (weekday: number, value: number): Bar => ({
  label: WEEKDAYS[weekday - 1]!,
  name: WEEKDAY_NAMES[weekday - 1]!,
  value,
});

/** The month's full name and year: "March 2024". */
export const monthName = (month: string): string =>
  `${MONTH_NAMES[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;
