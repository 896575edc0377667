// A progress bar on stderr for long commands (reindex, import): redrawn in place on a
// terminal, a line every 10% otherwise (logs stay readable).

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): { update(done: number, total: number): void; end(): void } {
  let lastTenth = -1;
  let drawn = false;
  return {
    update(done, total) {
      const frac = total === 0 ? 1 : done / total;
      if (stream.isTTY) {
        const width = 30;
        const filled = Math.round(frac * width);
        stream.write(`\r${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`);
        drawn = true;
      } else if (Math.floor(frac * 10) > lastTenth) {
        lastTenth = Math.floor(frac * 10);
        stream.write(`${label}: ${done}/${total}\n`);
      }
    },
    end() {
      if (drawn) stream.write("\n");
    },
  };
}
