import { spawn } from 'node:child_process'
import path from 'node:path'
import { ROOT } from './paths.js'

export const CLI = path.join(ROOT, 'dist', 'src', 'cli.js')

export interface CliRun { stdout: string, stderr: string, code: number }

/**
 * Runs the built CLI with `input` on stdin (Node flags such as `--import` go in `nodeArgs`), in
 * the folder `cwd` (default: this process's).
 */
export async function runCli (args: string[], input = '', nodeArgs: string[] = [], cwd?: string, env?: NodeJS.ProcessEnv): Promise<CliRun> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd, env: env ?? process.env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
    child.on('error', reject)
    child.on('close', code => resolve({ stdout, stderr, code: code ?? -1 }))
    child.stdin.end(input)
  })
}
