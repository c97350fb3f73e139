package org.agentworkspace.testkit.historygen;

import static org.agentworkspace.testkit.historygen.Json.f;
import static org.agentworkspace.testkit.historygen.Json.n;
import static org.agentworkspace.testkit.historygen.Json.q;

import java.io.IOException;

/**
 * Claude Code 2.1.330 ({@code .claude/projects/<cwd with non-alphanumerics as '-'>/<sessionId>.jsonl}), shaped like
 * the recorded sessions: queue operations, user records with cwd/version/gitBranch, one assistant line per content
 * block repeating the API message's usage, tool results as user records with {@code toolUseResult}, bookkeeping
 * records ({@code attachment}, {@code last-prompt}, {@code cost-state}) the readers skip, and an {@code ai-title}
 * record (interactive sessions get one; the recorded headless runs had none) after the first answer and again at
 * the end of the file (as the CLI re-appends session metadata, so a tail read finds it).
 */
final class ClaudeWriter extends SessionWriter {
    private final String branch;
    private String parent;

    ClaudeWriter(HistoryGenerator.Plan plan, String project) {
        super(plan, project);
        this.branch = r.nextInt(3) == 0 ? "feature/" + Vocabulary.anyWord(r) : "main";
    }

    static String folder(String project) {
        StringBuilder sb = new StringBuilder(project.length());
        for (int i = 0; i < project.length(); i++) {
            char c = project.charAt(i);
            sb.append(Character.isLetterOrDigit(c) && c < 128 ? c : '-');
        }
        return sb.toString();
    }

    @Override
    String relativeFile() {
        return ".claude/projects/" + folder(project) + "/" + sessionId + ".jsonl";
    }

    @Override
    void begin() {
    }

    private void common() {
        line.append(",\"userType\":\"external\",\"entrypoint\":\"cli\"");
        f(line, "cwd", project);
        f(line, "sessionId", sessionId);
        line.append(",\"version\":\"2.1.330\"");
        f(line, "gitBranch", branch);
        line.append('}');
    }

    private String record(String type) {
        String uuid = uuid(false);
        line.append("{\"parentUuid\":");
        q(line, parent);
        line.append(",\"isSidechain\":false");
        f(line, "type", type);
        f(line, "uuid", uuid);
        f(line, "timestamp", ts());
        parent = uuid;
        return uuid;
    }

    @Override
    void turn(String prompt, int turnIndex, int steps) throws IOException {
        line.append("{\"type\":\"queue-operation\",\"operation\":\"enqueue\"");
        f(line, "timestamp", ts());
        f(line, "sessionId", sessionId);
        f(line, "content", prompt).append('}');
        emit();
        line.append("{\"type\":\"queue-operation\",\"operation\":\"dequeue\"");
        f(line, "timestamp", ts());
        f(line, "sessionId", sessionId).append('}');
        emit();
        String promptId = uuid(false);
        record("user");
        f(line, "promptId", promptId);
        line.append(",\"message\":{\"role\":\"user\",\"content\":");
        q(line, prompt).append("},\"permissionMode\":\"acceptEdits\"");
        common();
        emit();
        messages++;
        if (turnIndex == 0) {
            record("attachment");
            line.append(",\"attachment\":{\"type\":\"environment\",\"snapshot\":{\"workingDirectory\":");
            q(line, project);
            line.append(",\"isGitRepo\":true,\"platform\":\"linux\",\"shell\":\"bash\"}}");
            common();
            emit();
        }
        for (int s = 0; s < steps; s++) {
            tick();
            boolean last = s == steps - 1;
            String msgId = "msg_" + hex(24);
            long in = 2_000 + r.nextInt(60_000);
            long out = 20 + r.nextInt(2_000);
            long cacheRead = r.nextInt(3) == 0 ? 0 : r.nextInt(80_000);
            String usage = "{\"input_tokens\":" + in + ",\"cache_creation_input_tokens\":" + r.nextInt(5_000)
                    + ",\"cache_read_input_tokens\":" + cacheRead + ",\"output_tokens\":" + out
                    + ",\"service_tier\":\"standard\"}";
            String stop = last ? "end_turn" : "tool_use";
            if (r.nextInt(3) == 0) {
                assistant(msgId, usage, stop, "{\"type\":\"thinking\",\"thinking\":", thought(),
                        ",\"signature\":\"" + hex(64) + "\"}");
            }
            assistant(msgId, usage, stop, "{\"type\":\"text\",\"text\":", reply(), "}");
            if (turnIndex == 0 && s == 0 && title() != null) {
                line.append("{\"type\":\"ai-title\"");
                f(line, "sessionId", sessionId);
                f(line, "aiTitle", title()).append('}');
                emit();
            }
            if (!last) {
                String toolId = "toolu_" + hex(24);
                String tool = Vocabulary.tool(r);
                StringBuilder input = new StringBuilder(128);
                switch (tool) {
                    case "Bash" -> {
                        input.append("{\"command\":");
                        q(input, command()).append(",\"description\":");
                        q(input, Vocabulary.word(r) + " " + Vocabulary.anyWord(r)).append('}');
                    }
                    case "Grep", "Glob" -> {
                        input.append("{\"pattern\":");
                        q(input, Vocabulary.identifier(r)).append(",\"path\":");
                        q(input, project).append('}');
                    }
                    default -> {
                        input.append("{\"file_path\":");
                        q(input, Vocabulary.filePath(r, project)).append('}');
                    }
                }
                line.setLength(0);
                record("assistant");
                line.append(",\"message\":{\"id\":\"").append(msgId).append("\",\"type\":\"message\",")
                        .append("\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[")
                        .append("{\"type\":\"tool_use\",\"id\":\"").append(toolId).append("\",\"name\":\"")
                        .append(tool).append("\",\"input\":").append(input).append("}],\"stop_reason\":\"")
                        .append(stop).append("\",\"usage\":").append(usage).append('}');
                f(line, "requestId", "req_" + hex(24));
                common();
                emit();
                messages++;
                tick();
                String output = toolOutput();
                boolean error = r.nextInt(15) == 0;
                record("user");
                f(line, "promptId", promptId);
                line.append(",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"").append(toolId)
                        .append("\",\"type\":\"tool_result\",\"content\":");
                q(line, output).append(",\"is_error\":").append(error).append("}]}");
                line.append(",\"toolUseResult\":{\"stdout\":");
                q(line, output).append(",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}");
                common();
                emit();
                messages++;
            }
        }
        line.append("{\"type\":\"last-prompt\"");
        f(line, "lastPrompt", prompt);
        f(line, "leafUuid", parent);
        f(line, "sessionId", sessionId).append('}');
        emit();
    }

    private void assistant(String msgId, String usage, String stop, String blockStart, String body, String blockEnd)
            throws IOException {
        record("assistant");
        line.append(",\"message\":{\"id\":\"").append(msgId).append("\",\"type\":\"message\",\"role\":\"assistant\",")
                .append("\"model\":\"claude-sonnet-4-5\",\"content\":[").append(blockStart);
        q(line, body).append(blockEnd).append("],\"stop_reason\":\"").append(stop).append("\",\"usage\":")
                .append(usage).append('}');
        f(line, "requestId", "req_" + hex(24));
        common();
        emit();
        messages++;
    }

    @Override
    void end() throws IOException {
        if (title() != null) {
            // written again at the end, where a tail read (the cheap summary) finds it
            line.append("{\"type\":\"ai-title\"");
            f(line, "sessionId", sessionId);
            f(line, "aiTitle", title()).append('}');
            emit();
        }
        line.append("{\"type\":\"cost-state\"");
        f(line, "sessionId", sessionId);
        n(line, "totalDuration", clock - plan.startMillis());
        n(line, "totalLinesAdded", r.nextInt(500)).append('}');
        emit();
    }
}
