import { spawn } from "node:child_process";

// Runs a program to its end, as a person or an agent would from a shell: its exit code and
// everything it wrote. Used by the end-to-end tests of the CLI and the pasted commands.

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runProgram(
  command: string,
  args: string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; stdin?: string },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => (stdout += d));
    child.stderr?.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
