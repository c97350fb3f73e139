package org.agentworkspace.api.provider;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns one run's native output (stdout, one line at a time) into {@link AgentEvent}s. A parser is a pure function of
 * the lines it has seen: the same sequence of {@link #parse} calls followed by the same {@link #finish} gives the same
 * events. It may keep state within one stream (the session id, pending text deltas, which tool calls were announced),
 * so use a new parser ({@link AgentProvider#newParser()}) per run; it is not thread-safe.
 *
 * <p>Every non-blank line yields at least one event; a line the parser cannot map yields
 * {@link AgentEvent.Unrecognized} (never a silent drop). Blank lines yield nothing.
 */
public interface StreamParser {

    /** The events of one line of stdout (without its line terminator). */
    List<AgentEvent> parse(String line);

    /**
     * The events after the process exited with {@code exitCode}: anything still pending, then exactly one
     * {@link AgentEvent.Completed}. Call once; afterwards the parser accepts nothing more.
     */
    List<AgentEvent> finish(int exitCode);

    /** Parses a whole recorded stream and finishes it. */
    default List<AgentEvent> parseAll(Iterable<String> lines, int exitCode) {
        List<AgentEvent> out = new ArrayList<>();
        for (String line : lines) {
            out.addAll(parse(line));
        }
        out.addAll(finish(exitCode));
        return List.copyOf(out);
    }
}
