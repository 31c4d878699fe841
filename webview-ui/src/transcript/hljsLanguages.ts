/**
 * The highlight.js languages the transcript can highlight, each built as its own small
 * file (dist/webview/hljs/<name>.js, see esbuild.mjs) and loaded the first time a code
 * block asks for it. Name → the aliases highlight.js gives it (a fence's info string may
 * use either); test/unit/webview-ui/transcript/codeHighlight.test.ts checks this table against the
 * definitions themselves. Plain data: esbuild.mjs reads it too.
 */
export const HLJS_LANGUAGES: Record<string, readonly string[]> = {
  awk: [],
  bash: ['sh', 'zsh'],
  c: ['h'],
  clojure: ['clj', 'edn'],
  cmake: ['cmake.in'],
  cpp: ['cc', 'c++', 'h++', 'hpp', 'hh', 'hxx', 'cxx'],
  csharp: ['cs', 'c#'],
  css: [],
  dart: [],
  diff: ['patch'],
  dockerfile: ['docker'],
  dos: ['bat', 'batch', 'cmd'],
  elixir: ['ex', 'exs'],
  elm: [],
  erlang: ['erl'],
  fsharp: ['fs', 'f#'],
  go: ['golang'],
  gradle: [],
  graphql: ['gql'],
  groovy: [],
  handlebars: ['hbs', 'html.hbs', 'html.handlebars', 'htmlbars'],
  haskell: ['hs'],
  ini: ['toml'],
  java: ['jsp'],
  javascript: ['js', 'jsx', 'mjs', 'cjs'],
  json: ['jsonc', 'json5'],
  julia: [],
  kotlin: ['kt', 'kts', 'ktm', 'ktx'],
  latex: ['tex'],
  less: [],
  lua: ['pluto'],
  makefile: ['mk', 'mak', 'make'],
  markdown: ['md', 'mkdown', 'mkd'],
  matlab: [],
  nginx: ['nginxconf'],
  nix: ['nixos'],
  objectivec: ['mm', 'objc', 'obj-c', 'obj-c++', 'objective-c++'],
  ocaml: ['ml'],
  perl: ['pl', 'pm'],
  php: [],
  'php-template': [],
  powershell: ['pwsh', 'ps', 'ps1'],
  properties: [],
  protobuf: ['proto'],
  python: ['py', 'gyp', 'ipython'],
  'python-repl': ['pycon'],
  r: [],
  ruby: ['rb', 'gemspec', 'podspec', 'thor', 'irb'],
  rust: ['rs'],
  scala: [],
  scss: [],
  shell: ['console', 'shellsession'],
  sql: [],
  swift: [],
  twig: ['craftcms'],
  typescript: ['ts', 'tsx', 'mts', 'cts'],
  vbnet: ['vb'],
  vim: [],
  wasm: [],
  xml: ['html', 'xhtml', 'rss', 'atom', 'xjb', 'xsd', 'xsl', 'plist', 'wsf', 'svg'],
  yaml: ['yml'],
};

/** Languages a language embeds (highlight.js `subLanguage`), loaded along with it. */
export const HLJS_EMBEDS: Record<string, readonly string[]> = {
  dockerfile: ['bash'],
  handlebars: ['xml'],
  'php-template': ['php', 'xml'],
  'python-repl': ['python'],
  shell: ['bash'],
  twig: ['xml'],
  xml: ['css', 'javascript'],
};

const BY_ALIAS = new Map<string, string>();
for (const [name, aliases] of Object.entries(HLJS_LANGUAGES)) {
  BY_ALIAS.set(name, name);
  for (const alias of aliases) BY_ALIAS.set(alias, name);
}

/**
 * The language a fence's info string names (```ts, ```Python {linenos}, ```language-js),
 * or undefined: unknown languages are shown as plain text (no guessing over big blocks).
 */
export function languageOfInfo(info: string): string | undefined {
  const word =
    info
      .trim()
      .split(/[\s{,]/, 1)[0]
      ?.toLowerCase() ?? '';
  const name = word.startsWith('language-') ? word.slice('language-'.length) : word;
  if (!name || name.length > 40) return undefined;
  return BY_ALIAS.get(name);
}
