/**
 * Whether a command-line tool is installed: the first executable file called `name` in
 * the PATH folders (with the PATHEXT extensions on Windows), as a shell would find it.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** An environment variable by name, ignoring case on Windows (`Path` there). */
function variable(env: Env, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

export async function findExecutable(
  name: string,
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<string | undefined> {
  const windows = platform === 'win32';
  const folders = (variable(env, 'PATH', platform) ?? '').split(windows ? ';' : ':');
  // Windows runs `claude` as claude.cmd, claude.exe…; elsewhere the name is the file.
  const names = windows
    ? (variable(env, 'PATHEXT', platform) ?? '.COM;.EXE;.BAT;.CMD')
        .split(';')
        .filter(Boolean)
        .map((extension) => name + extension.toLowerCase())
    : [name];
  for (const folder of folders) {
    if (!folder) continue;
    for (const file of names) {
      const candidate = join(folder, file);
      try {
        if (!(await stat(candidate)).isFile()) continue;
        // Windows has no execute bit: the extension says it runs.
        if (!windows) await access(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not there, or not executable: keep looking, as a shell would.
      }
    }
  }
  return undefined;
}
