package org.agentworkspace.core.runs;

import java.util.List;

/**
 * Turns a CLI's stdout lines into unified events, as JSON object texts stored as {@link EntryKind#EVENT} entries.
 * One instance serves one run and is called from one thread, in line order. The provider SPI's stream parser
 * adapts to this in a few lines. Lines cut at the line limit are stored as native entries but not parsed.
 */
public interface LineParser {
    /** Events for one stdout line (without its line terminator); each a JSON object text. */
    List<String> parse(String line);

    /** Events after the process ended (for instance a final "complete" event); each a JSON object text. */
    default List<String> finish(int exitCode) {
        return List.of();
    }

    /** Called once by {@link RunEngine#start} with the run's id, before any line is parsed. */
    default void bind(String runId) {
    }

    /** A parser that makes no events: the log holds native lines and status only. */
    static LineParser none() {
        return line -> List.of();
    }
}
