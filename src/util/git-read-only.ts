/**
 * git subcommands that only read whatever their arguments. The git tool allows them in every
 * mode and the permission defaults allow them without asking; both start from this one list.
 */
export const GIT_READ_ONLY_SUBCOMMANDS: readonly string[] = [
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'rev-list',
  'shortlog',
  'describe',
  'grep',
  'cat-file',
  'merge-base',
  'name-rev',
  'show-ref',
  'for-each-ref',
  'diff-tree',
];
