/**
 * Where NLTK looks for its data (nltk/data.py's `path`), without running Python: the folders of
 * NLTK_DATA, then ~/nltk_data, then the Python prefix's nltk_data, share/nltk_data and
 * lib/nltk_data, then /usr/share, /usr/local/share, /usr/lib and /usr/local/lib's nltk_data. With
 * no Python to ask for sys.prefix, the prefixes taken are an active virtualenv's or conda
 * environment's (VIRTUAL_ENV, CONDA_PREFIX), then Debian's python3 (/usr) and the python images'
 * (/usr/local). A folder named in model-settings.json ("nltk_data") comes first, as an app's
 * `nltk.data.path.insert(0, ...)` does. docs/preprocessing.md, "Where the data comes from".
 */
import { homedir } from 'node:os'
import path from 'node:path'

/** The folders searched, in order, each once. */
export function nltkDataFolders (settingsFolder: string | null, env: NodeJS.ProcessEnv = process.env): string[] {
  const folders: string[] = []
  if (settingsFolder !== null) folders.push(settingsFolder)
  for (const d of (env.NLTK_DATA ?? '').split(path.delimiter)) if (d !== '') folders.push(path.resolve(d))
  const home = env.HOME ?? homedir()
  if (home !== '') folders.push(path.join(home, 'nltk_data'))
  const prefixes = [env.VIRTUAL_ENV, env.CONDA_PREFIX, '/usr', '/usr/local'].filter((p): p is string => p !== undefined && p !== '')
  for (const prefix of prefixes) folders.push(path.join(prefix, 'nltk_data'), path.join(prefix, 'share', 'nltk_data'), path.join(prefix, 'lib', 'nltk_data'))
  folders.push('/usr/share/nltk_data', '/usr/local/share/nltk_data', '/usr/lib/nltk_data', '/usr/local/lib/nltk_data')
  return [...new Set(folders)]
}
