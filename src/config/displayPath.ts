/** A path as a person reads it: relative inside the project (when given), `~/...` under the home. */
export const displayPath = (file: string, home: string, cwd?: string): string => {
  if (cwd !== undefined && cwd !== '' && file.startsWith(`${cwd}/`)) return file.slice(cwd.length + 1);
  return home !== '' && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
};
