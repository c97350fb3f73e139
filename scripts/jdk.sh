# Sourced by the other scripts: exports JAVA_HOME pointing at a JDK 21 or newer.
# Order: JAVA_HOME when it is new enough, else the newest JDK under /usr/lib/jvm, else `java` on PATH; otherwise stop.

aw_java_major() { # prints the feature version of the java binary $1, or nothing
  # the JDK's release file when it has one (no JVM started: this runs before every server start), else ask java
  local release major
  release="$(dirname "$(dirname "$1")")/release"
  if [ -f "$release" ]; then
    major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release" | head -n1)
    if [ -n "$major" ]; then echo "$major"; return 0; fi
  fi
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1
}

aw_find_jdk() {
  local candidate major best="" best_major=0
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(aw_java_major "$JAVA_HOME/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then echo "$JAVA_HOME"; return 0; fi
  fi
  for candidate in /usr/lib/jvm/*; do
    [ -x "$candidate/bin/javac" ] || continue
    [ -L "$candidate" ] && continue
    major=$(aw_java_major "$candidate/bin/java")
    [ -n "$major" ] || continue
    if [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then best="$candidate"; best_major="$major"; fi
  done
  if [ -n "$best" ]; then echo "$best"; return 0; fi
  if command -v javac >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    major=$(aw_java_major "$candidate/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then echo "$candidate"; return 0; fi
  fi
  return 1
}

if ! AW_JDK=$(aw_find_jdk); then
  echo "Agent Workspace needs a JDK 21 or newer (25 recommended)." >&2
  echo "None found in JAVA_HOME, under /usr/lib/jvm, or on PATH. Install one (e.g. Temurin 25) and set JAVA_HOME." >&2
  exit 1
fi
export JAVA_HOME="$AW_JDK"
AW_JDK_MAJOR=$(aw_java_major "$JAVA_HOME/bin/java")
export AW_JDK_MAJOR
export PATH="$JAVA_HOME/bin:$PATH"
