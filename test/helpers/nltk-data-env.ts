/**
 * Loaded by mocha before every test file (.mocharc.json `require`): the service under test,
 * its CLI and its child processes find NLTK's data where NLTK would, and tests give it the
 * reference copy ../shared/nltk_data as NLTK_DATA (unless one is set), and the docs' Sastrawi
 * example its dictionary. Only the path is set
 * here; nothing is read until a test loads a model.
 */
import { sharedPath } from './shared-data.js'

process.env.NLTK_DATA ??= sharedPath('nltk_data')
// The dictionary docs/ensembles-and-sharing.md's Sastrawi example reads (test/docs/port-helpers.test.ts).
process.env.SASTRAWI_DICTIONARY ??= sharedPath('sastrawi/kata-dasar.txt')
