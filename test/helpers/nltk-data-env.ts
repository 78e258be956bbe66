/**
 * Loaded by mocha before every test file (.mocharc.json `require`): the service under test,
 * its CLI and its child processes find NLTK's data where NLTK would, and tests give it the
 * reference copy ../shared/nltk_data as NLTK_DATA (unless one is set). Only the path is set
 * here; nothing is read until a test loads a model.
 */
import path from 'node:path'
import { SHARED } from './paths.js'

process.env.NLTK_DATA ??= path.join(SHARED, 'nltk_data')
