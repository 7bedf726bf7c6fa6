import { promises as fs } from 'node:fs';
import path from 'node:path';

export type BuildTarget = 'build' | 'test';

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

/**
 * The command that builds (or tests) a project, guessed from its manifest files. Only commands
 * that compile or run the test suite: never one that starts the program.
 */
export async function detectBuildCommand(root: string, target: BuildTarget): Promise<string | undefined> {
  const at = (name: string) => exists(path.join(root, name));
  const pkgPath = path.join(root, 'package.json');
  if (await at('package.json')) {
    const pkg = JSON.parse(await fs.readFile(pkgPath, 'utf8').catch(() => '{}')) as {
      scripts?: Record<string, string>;
    };
    const runner = (await at('pnpm-lock.yaml'))
      ? 'pnpm'
      : (await at('yarn.lock'))
        ? 'yarn'
        : (await at('bun.lockb')) || (await at('bun.lock'))
          ? 'bun'
          : 'npm';
    if (pkg.scripts?.[target]) return target === 'test' ? `${runner} test` : `${runner} run build`;
    if (target === 'build' && (await at('tsconfig.json'))) return 'npx tsc --noEmit';
  }
  if (await at('Cargo.toml')) return target === 'test' ? 'cargo test' : 'cargo build';
  if (await at('go.mod')) return target === 'test' ? 'go test ./...' : 'go build ./...';
  if ((await at('Makefile')) || (await at('makefile')) || (await at('GNUmakefile'))) {
    return target === 'test' ? 'make test' : 'make';
  }
  if (await at('CMakeLists.txt')) {
    return target === 'test'
      ? 'cmake --build build && ctest --test-dir build'
      : 'cmake -S . -B build && cmake --build build';
  }
  if (await at('gradlew')) return target === 'test' ? './gradlew test' : './gradlew build -x test';
  if (await at('pom.xml')) return target === 'test' ? 'mvn -q test' : 'mvn -q compile';
  if ((await at('pyproject.toml')) || (await at('setup.py'))) {
    return target === 'test' ? 'python -m pytest -q' : 'python -m compileall -q .';
  }
  return undefined;
}
