/**
 * `node --import <this>`: a process in which lzma-native cannot load, as on a libc its
 * prebuilt binary was not built for (a resolve hook refuses it with that error).
 */
import { register } from 'node:module'

register('./no-lzma-native-hooks.js', import.meta.url)
