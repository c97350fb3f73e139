#!/bin/sh
# Fake coding-agent CLI installed by org.agentworkspace.testkit.fakecli.FakeClis: replays a stream recorded from the
# real CLI (cursor: synthetic, see docs/testkit.md). POSIX sh + coreutils/awk/sed only; no node.
#
# Knobs (environment):
#   AW_FAKE_SCENARIO=plain|tool-write|resume  force the replayed scenario (default: from argv)
#   AW_FAKE_EVENTS=N         emit N synthetic text-delta events in this provider's format instead of the recording
#   AW_FAKE_DELAY_MS=MS      sleep MS before each output line (and before exiting when there is no line)
#   AW_FAKE_SILENCE_MS=MS    say nothing for MS before the first output line (a model that thinks for a while)
#   AW_FAKE_GRANDCHILDREN=N  start N background `sleep` grandchildren (stdio on /dev/null; pids on stderr)
#   AW_FAKE_GRANDCHILD_SECONDS=S  how long they sleep (default 600)
#   AW_FAKE_EXIT=CODE        exit with CODE after the output
#   AW_FAKE_WRITE_FILE=PATH  write PATH (relative to cwd) like the tool scenario, and replay tool-write
#   AW_FAKE_REAL_CWD=1       replay with the recording's cwd (/tmp/aw-project) replaced by the real working directory,
#                            so the tool calls name files of the project the fake runs in
#   AW_FAKE_ECHO_ENV=A,B     first print {"type":"aw_fake_env","set":[...],"unset":[...]} (names only, never values)
#   AW_FAKE_ARGS_FILE=PATH   write argv there, one argument per line
#   AW_FAKE_ECHO_DIGEST=A,B  first print {"type":"aw_fake_digest","A":"<sha256 hex of A's value>",...} ("" when
#                            unset): which credential a run got, without the credential itself in the output
#   AW_FAKE_HUGE_LINE_BYTES=N  first print one line of N bytes (`x` characters), then the stream as usual
#   AW_FAKE_ENDLESS=1        print the stream's first line, then `aw-fake: endless output` lines forever
#   AW_FAKE_ASK_PERMISSION=TOOL  claude's stdio permission prompt: print the stream's first line and a can_use_tool
#                            control_request for TOOL, wait for a control_response line on stdin, print
#                            {"type":"aw_fake_permission","behavior":"allow"|"deny"|"none"} (none: stdin ended), then
#                            the rest of the stream
PROVIDER='@PROVIDER@'
DATA='@DATA@'

set -u

if [ -n "${AW_FAKE_ARGS_FILE:-}" ]; then
  : > "$AW_FAKE_ARGS_FILE"
  for a in "$@"; do printf '%s\n' "$a" >> "$AW_FAKE_ARGS_FILE"; done
fi

prompt=''
resume=''
subcommand_done=0
while [ $# -gt 0 ]; do
  a=$1
  shift
  case "$a" in
    --version|-v|-V)
      cat "$DATA/version"; exit 0 ;;
    --) prompt="$*"; break ;;
    --prompt=*) prompt=${a#--prompt=} ;;
    -p|--prompt|--print)
      if [ $# -gt 0 ]; then
        case "$1" in -*) ;; *) prompt=$1; shift ;; esac
      fi ;;
    --resume=*) resume=${a#--resume=} ;;
    --session=*) resume=${a#--session=} ;;
    --resume|-r|--session|-s)
      if [ $# -gt 0 ]; then resume=$1; shift; fi ;;
    --model|-m|--output-format|-o|--format|--permission-mode|--approval-mode|--auth-type|--allowedTools| \
    --disallowedTools|--allowed-tools|--agent|--dir|-d|--directory|--cd|-C|--sandbox|--config|-c|-u|--base-url| \
    -k|--api-key|--max-tool-rounds|--session-id|--mcp-config|--input-format|--variant|--title|-f|--file)
      if [ $# -gt 0 ]; then shift; fi ;;
    -*) ;;
    *)
      case "$PROVIDER:$subcommand_done:$a" in
        codex:0:exec|opencode:0:run) subcommand_done=1 ;;
        codex:1:resume) subcommand_done=2; if [ $# -gt 0 ]; then
            case "$1" in -*) ;; *) resume=$1; shift ;; esac; fi ;;
        codex:2:*) if [ -z "$resume" ]; then resume=$a; else prompt=$a; fi ;;
        cursor:0:status) echo "Logged in as fake@example.invalid"; exit 0 ;;
        *) prompt=$a ;;
      esac ;;
  esac
done

# codex exec takes the id after its options too: `codex exec resume --json ID -- PROMPT`
if [ "$PROVIDER" = codex ] && [ "$subcommand_done" = 2 ] && [ -z "$resume" ]; then
  resume='unknown'
fi

scenario=${AW_FAKE_SCENARIO:-}
if [ -z "$scenario" ]; then
  if [ -n "$resume" ]; then scenario=resume
  elif [ -n "${AW_FAKE_WRITE_FILE:-}" ]; then scenario=tool-write
  else
    case "$prompt" in *'[[mock:tool'*) scenario=tool-write ;; *) scenario=plain ;; esac
  fi
fi
[ -f "$DATA/$scenario.jsonl" ] || scenario=plain

new_id() {
  if [ -r /proc/sys/kernel/random/uuid ]; then u=$(cat /proc/sys/kernel/random/uuid)
  else u=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n' | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/'); fi
  case "$PROVIDER" in
    opencode) printf 'ses_%s' "$(printf '%s' "$u" | tr -d '-' | cut -c1-26)" ;;
    *) printf '%s' "$u" ;;
  esac
}

if [ -n "$resume" ] && [ "$resume" != unknown ]; then session=$resume; else session=$(new_id); fi
recorded=$(cat "$DATA/$scenario.session" 2>/dev/null || true)

delay_s=''
if [ -n "${AW_FAKE_DELAY_MS:-}" ] && [ "${AW_FAKE_DELAY_MS}" != 0 ]; then
  delay_s=$(awk -v ms="$AW_FAKE_DELAY_MS" 'BEGIN { printf "%.3f", ms / 1000 }')
fi

n=${AW_FAKE_GRANDCHILDREN:-0}
i=0
while [ "$i" -lt "$n" ]; do
  sleep "${AW_FAKE_GRANDCHILD_SECONDS:-600}" </dev/null >/dev/null 2>&1 &
  echo "aw-fake: grandchild pid $!" >&2
  i=$((i + 1))
done

if [ -n "${AW_FAKE_WRITE_FILE:-}" ]; then
  mkdir -p "$(dirname -- "$AW_FAKE_WRITE_FILE")"
  printf 'written by the fake %s CLI\n' "$PROVIDER" > "$AW_FAKE_WRITE_FILE"
fi

if [ -n "${AW_FAKE_ECHO_ENV:-}" ]; then
  set_list=''
  unset_list=''
  old_ifs=$IFS
  IFS=,
  for v in $AW_FAKE_ECHO_ENV; do
    case "$v" in *[!A-Za-z0-9_]*|'') continue ;; esac
    if eval "[ -n \"\${$v+x}\" ]"; then set_list="$set_list${set_list:+,}\"$v\""
    else unset_list="$unset_list${unset_list:+,}\"$v\""; fi
  done
  IFS=$old_ifs
  printf '{"type":"aw_fake_env","set":[%s],"unset":[%s]}\n' "$set_list" "$unset_list"
fi

if [ -n "${AW_FAKE_ECHO_DIGEST:-}" ]; then
  fields=''
  old_ifs=$IFS
  IFS=,
  for v in $AW_FAKE_ECHO_DIGEST; do
    case "$v" in *[!A-Za-z0-9_]*|'') continue ;; esac
    if eval "[ -n \"\${$v+x}\" ]"; then
      d=$(eval "printf '%s' \"\$$v\"" | sha256sum | cut -c1-64)
    else
      d=''
    fi
    fields="$fields${fields:+,}\"$v\":\"$d\""
  done
  IFS=$old_ifs
  printf '{"type":"aw_fake_digest",%s}\n' "$fields"
fi

if [ -n "${AW_FAKE_SILENCE_MS:-}" ] && [ "${AW_FAKE_SILENCE_MS}" != 0 ]; then
  sleep "$(awk -v ms="$AW_FAKE_SILENCE_MS" 'BEGIN { printf "%.3f", ms / 1000 }')"
fi

replace=''
if [ -n "$recorded" ]; then replace="s/$recorded/$session/g"; fi
if [ "${AW_FAKE_REAL_CWD:-}" = 1 ]; then
  real_cwd=$(pwd -P | sed 's/[\\&#]/\\&/g')
  replace="$replace${replace:+;}s#/tmp/aw-project#$real_cwd#g"
fi

emit() {
  # stdin: lines to print, with the recorded session id (and with AW_FAKE_REAL_CWD the cwd) replaced. With a delay
  # the lines are paced by a loop in this shell itself (no pipeline subshell), so the only children are the short
  # `sleep`s.
  if [ -z "$delay_s" ]; then
    if [ -n "$replace" ]; then sed "$replace"; else cat; fi
    return
  fi
  buf="$DATA/.replay.$$"
  if [ -n "$replace" ]; then sed "$replace" > "$buf"; else cat > "$buf"; fi
  while IFS= read -r line || [ -n "$line" ]; do
    sleep "$delay_s"
    printf '%s\n' "$line"
  done < "$buf"
  rm -f "$buf"
}

if [ -n "${AW_FAKE_ASK_PERMISSION:-}" ]; then
  head -n 1 "$DATA/$scenario.jsonl" | emit
  printf '{"type":"control_request","request_id":"aw-fake-perm-1","request":{"subtype":"can_use_tool","tool_name":"%s","input":{"file_path":"aw-fake.txt"}}}\n' "$AW_FAKE_ASK_PERMISSION"
  behavior=none
  while IFS= read -r line; do
    case "$line" in
      *control_response*'"behavior":"allow"'*) behavior=allow; break ;;
      *control_response*'"behavior":"deny"'*) behavior=deny; break ;;
    esac
  done
  printf '{"type":"aw_fake_permission","behavior":"%s"}\n' "$behavior"
  tail -n +2 "$DATA/$scenario.jsonl" | emit
  exit "${AW_FAKE_EXIT:-0}"
fi

if [ -n "${AW_FAKE_HUGE_LINE_BYTES:-}" ]; then
  head -c "$AW_FAKE_HUGE_LINE_BYTES" /dev/zero | tr '\0' x
  echo
fi

if [ -n "${AW_FAKE_ENDLESS:-}" ]; then
  head -n 1 "$DATA/$scenario.jsonl" | emit
  exec yes 'aw-fake: endless output'
fi

if [ -n "${AW_FAKE_EVENTS:-}" ]; then
  head_n=$(cat "$DATA/events.head" 2>/dev/null || echo 1)
  {
    head -n "$head_n" "$DATA/plain.jsonl"
    awk -v n="$AW_FAKE_EVENTS" -v sid="$recorded" -f "$DATA/events.awk"
    tail -n 1 "$DATA/plain.jsonl"
  } | emit
else
  emit < "$DATA/$scenario.jsonl"
fi

if [ -n "$delay_s" ] && [ ! -s "$DATA/$scenario.jsonl" ]; then sleep "$delay_s"; fi
exit "${AW_FAKE_EXIT:-0}"
