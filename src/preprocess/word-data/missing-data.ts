/** The one line a model refuses with when a step's data is not installed. */

/**
 * @param nltkPackage the NLTK package to download (`stopwords`, `punkt_tab`).
 * @param looked the path looked for inside each folder.
 */
export function missingData (nltkPackage: string, looked: string, folders: readonly string[]): Error {
  return new Error(`NLTK's ${nltkPackage} data is not installed: no ${looked} in ${folders.join(', ')}; install it where the app's NLTK finds it (python -m nltk.downloader ${nltkPackage}), set NLTK_DATA to a folder holding it, or name that folder in model-settings.json ("nltk_data")`)
}
