/**
 * The project a session belongs to and whether it is part of the open workspace. A local
 * session's project is its working directory (an absolute path); other backends only
 * know a repository ("acme/api", a URL), which is matched by its last segment against
 * the workspace folders' names.
 */

/** The open workspace folders (file-system paths) and whether only their sessions show. */
export interface WorkspaceScope {
  folders: readonly string[];
  /** "This workspace only": hide sessions whose project is outside every folder. */
  only: boolean;
}

export const NO_WORKSPACE: WorkspaceScope = { folders: [], only: false };

/** The session's project: its working directory, else its repository; undefined when neither. */
export function projectOf(session: { project?: string; repository?: string }): string | undefined {
  return session.project || session.repository || undefined;
}

const WINDOWS_PATH = /^(?:[a-zA-Z]:[\\/]|\\\\)/;

/** An absolute POSIX or Windows path (rather than a repository name or URL). */
export function isPath(project: string): boolean {
  return project.startsWith('/') || WINDOWS_PATH.test(project);
}

/** Slashes unified, trailing ones dropped; Windows paths compared case-insensitively. */
function normalizePath(path: string): string {
  const unified = path.replaceAll('\\', '/').replace(/\/+$/, '') || '/';
  return WINDOWS_PATH.test(path) ? unified.toLowerCase() : unified;
}

/** The last segment of a path, repository name or URL, without a trailing `.git`. */
export function projectName(project: string): string {
  const segments = project
    .replaceAll('\\', '/')
    .split('/')
    .filter((s) => s !== '');
  const last = segments.at(-1) ?? project;
  return last.endsWith('.git') && last.length > 4 ? last.slice(0, -4) : last;
}

/**
 * Whether a project belongs to one of the folders: a path equal to or inside a folder,
 * or a repository whose name is a folder's name (case-insensitive).
 */
export function inWorkspace(project: string | undefined, folders: readonly string[]): boolean {
  if (!project || folders.length === 0) return false;
  if (isPath(project)) {
    const path = normalizePath(project);
    return folders.some((folder) => {
      const root = normalizePath(folder);
      return path === root || path.startsWith(root === '/' ? root : `${root}/`);
    });
  }
  const name = projectName(project).toLowerCase();
  return folders.some((folder) => projectName(folder).toLowerCase() === name);
}
