// What the CLI prints: sizes, progress bars on stderr, tables and JSON on stdout.

const MB = 1024 * 1024;
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < MB) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / MB).toFixed(1)} MB`;
}

export interface Progress {
  update(done: number, extra?: string): void;
  done(): void;
  /** Leaves the bar line so error output starts on a fresh line. */
  abort(): void;
}

/** A progress reporter on stderr: a redrawn bar on a TTY, a plain line per 25% otherwise (CI logs). */
export function progress(
  label: string,
  total: number,
  opts: { quiet: boolean; unit: "bytes" | "files"; tty?: boolean },
): Progress {
  const tty = opts.tty ?? Boolean(process.stderr.isTTY);
  const started = Date.now();
  let lastDraw = 0;
  let nextStep = 0;
  const describe = (done: number, extra: string) => {
    const amount = opts.unit === "bytes" ? `${formatBytes(done)} / ${formatBytes(total)}` : `${done}/${total} files`;
    return `${amount}${extra ? `, ${extra}` : ""}`;
  };
  const bar: Progress = {
    update(done, extra = "") {
      if (opts.quiet) return;
      const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
      if (tty) {
        const now = Date.now();
        if (now - lastDraw < 80 && done < total) return;
        lastDraw = now;
        const width = 24;
        const filled = Math.round((pct / 100) * width);
        const secs = (now - started) / 1000;
        const rate = opts.unit === "bytes" && secs > 0.2 ? ` ${formatBytes(Math.round(done / secs))}/s` : "";
        process.stderr.write(
          `\r\x1b[2K${label.padEnd(10)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(pct).padStart(3)}% ${describe(done, extra)}${rate}`,
        );
      } else {
        // One line per quarter reached, so CI logs show movement without a line per chunk.
        if (pct < nextStep) return;
        process.stderr.write(`${label.toLowerCase()}: ${pct}% (${describe(done, extra)})\n`);
        while (nextStep <= pct) nextStep += 25;
      }
    },
    done() {
      if (opts.quiet) return;
      bar.update(total);
      if (tty) process.stderr.write("\n");
    },
    abort() {
      if (!opts.quiet && tty) process.stderr.write("\n");
    },
  };
  return bar;
}

/** Prints rows under a header, columns padded (the last one not). */
export function table(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
  process.stdout.write(`${[fmt(head), ...rows.map(fmt)].join("\n")}\n`);
}

export const print = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};
