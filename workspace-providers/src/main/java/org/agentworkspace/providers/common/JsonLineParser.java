package org.agentworkspace.providers.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.StreamParser;

/**
 * The skeleton of every adapter's parser: one JSON object per line, the session id, the terminal result and exactly
 * one {@link AgentEvent.Completed} at {@link #finish}. A line that is not a JSON object, or for which the subclass
 * produced nothing, becomes {@link AgentEvent.Unrecognized}.
 */
public abstract class JsonLineParser implements StreamParser {

    private final String cli;
    private final boolean resultLineExpected;
    private String sessionId;
    private boolean terminalSeen;
    private boolean terminalSuccess;
    private String resultText;
    private boolean failed;
    private boolean finished;

    /**
     * @param cli the CLI's name, for messages
     * @param resultLineExpected whether the CLI ends a complete run with a result line (claude, codex, gemini, qwen,
     *     cursor); if so, an exit without one is a failure. Otherwise success is exit status 0 and no fatal error.
     */
    protected JsonLineParser(String cli, boolean resultLineExpected) {
        this.cli = Objects.requireNonNull(cli);
        this.resultLineExpected = resultLineExpected;
    }

    @Override
    public final List<AgentEvent> parse(String line) {
        if (finished) {
            throw new IllegalStateException("the parser is finished");
        }
        Objects.requireNonNull(line, "line");
        String trimmed = line.strip();
        if (trimmed.isEmpty()) {
            return List.of();
        }
        JsonNode node;
        try {
            node = Json.parse(trimmed);
        } catch (JsonProcessingException e) {
            return List.of(new AgentEvent.Unrecognized(line, "not JSON: " + e.getOriginalMessage()));
        }
        if (!node.isObject()) {
            return List.of(new AgentEvent.Unrecognized(line, "not a JSON object"));
        }
        List<AgentEvent> out = new ArrayList<>();
        onObject(node, line, out);
        if (out.isEmpty()) {
            out.add(new AgentEvent.Unrecognized(line, "no unified counterpart: " + describe(node)));
        }
        return List.copyOf(out);
    }

    @Override
    public final List<AgentEvent> finish(int exitCode) {
        if (finished) {
            throw new IllegalStateException("the parser is already finished");
        }
        List<AgentEvent> out = new ArrayList<>();
        beforeFinish(out);
        finished = true;
        boolean success;
        if (resultLineExpected && !terminalSeen) {
            out.add(new AgentEvent.Error("no_result",
                    cli + " exited with status " + exitCode + " without reporting a result"));
            success = false;
        } else {
            success = (resultLineExpected ? terminalSuccess : !failed) && exitCode == 0;
            if (exitCode != 0 && (resultLineExpected ? terminalSuccess : !failed)) {
                out.add(new AgentEvent.Error("exit_status", cli + " exited with status " + exitCode));
            }
        }
        out.add(new AgentEvent.Completed(success, sessionId, resultText));
        return List.copyOf(out);
    }

    /** Maps one JSON object; add nothing to let the base report it as {@link AgentEvent.Unrecognized}. */
    protected abstract void onObject(JsonNode node, String rawLine, List<AgentEvent> out);

    /** Emits what is still pending before the final {@link AgentEvent.Completed}. */
    protected void beforeFinish(List<AgentEvent> out) {
    }

    /** A short description of an unmapped object for {@link AgentEvent.Unrecognized#reason()}. */
    protected String describe(JsonNode node) {
        String type = Json.text(node, "type");
        return cli + " event " + (type == null ? "without a type" : "'" + type + "'");
    }

    /** Announces {@code id} as the session if it is new (a fork may change it). */
    protected final void session(String id, List<AgentEvent> out) {
        if (id != null && !id.isBlank() && !id.equals(sessionId)) {
            sessionId = id;
            out.add(new AgentEvent.SessionStarted(id));
        }
    }

    /** The CLI reported the end of its run. */
    protected final void terminal(boolean success, String result) {
        terminalSeen = true;
        terminalSuccess = success;
        if (result != null) {
            resultText = result;
        }
    }

    /** The last assistant text, used as the result when the CLI reports no result line. */
    protected final void lastText(String text) {
        if (!terminalSeen && text != null) {
            resultText = text;
        }
    }

    /** A fatal error: the run fails even if the process exits with 0 (CLIs without a result line). */
    protected final void fail() {
        failed = true;
    }

    protected final String sessionId() {
        return sessionId;
    }

    protected final String cli() {
        return cli;
    }
}
