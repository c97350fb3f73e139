package org.agentworkspace.core.runs;

import java.util.Locale;

/** What a run log entry holds; the payload shapes are listed in docs/runs.md. */
public enum EntryKind {
    /** A lifecycle change: {@code {"status":"running","pid":…}}, {@code {"status":"failed","reason":…,"exitCode":…}}. */
    STATUS,
    /** One raw stdout line of the CLI: {@code {"line":"…"}} (plus {@code "truncated":true} when cut). */
    NATIVE,
    /** One unified event produced by the run's {@link LineParser}: its JSON object, as the parser made it. */
    EVENT,
    /** One stderr line: {@code {"line":"…"}}; bounded per run. */
    STDERR,
    /** An output limit was hit: {@code {"what":"line"|"output"|"stderr","limit":…}}. */
    TRUNCATED,
    /** The parser failed on a line or returned something that is not a JSON object: {@code {"seq":…,"error":"…"}}. */
    PARSE_ERROR;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static EntryKind ofWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
