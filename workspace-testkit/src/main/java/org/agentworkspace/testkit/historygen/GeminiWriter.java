package org.agentworkspace.testkit.historygen;

import static org.agentworkspace.testkit.historygen.Json.f;
import static org.agentworkspace.testkit.historygen.Json.q;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Gemini CLI 0.61.0 ({@code .gemini/tmp/<project basename>/chats/session-<yyyy-MM-ddTHH-mm>-<id8>.jsonl}), the
 * mutation log the recordings show: a header, a {@code $set.messages} with the injected {@code <session_context>},
 * message records (a model message with tool calls is written twice, the second time with the completed
 * {@code toolCalls}, followed by the {@code functionResponse}-only user record), {@code $set.lastUpdated} after each
 * record, and a {@code $set.summary} at the end for titled sessions. {@code .project_root} and
 * {@code projects.json} are written by {@link HistoryGenerator}.
 */
final class GeminiWriter extends SessionWriter {
    private final String folder;

    GeminiWriter(HistoryGenerator.Plan plan, String project) {
        super(plan, project);
        this.folder = project.substring(project.lastIndexOf('/') + 1);
    }

    @Override
    String relativeFile() {
        String t = iso(plan.startMillis());
        return ".gemini/tmp/" + folder + "/chats/session-" + t.substring(0, 13) + "-" + t.substring(14, 16) + "-"
                + sessionId.substring(0, 8) + ".jsonl";
    }

    static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void lastUpdated() throws IOException {
        line.append("{\"$set\":{\"lastUpdated\":\"").append(ts()).append("\"}}");
        emit();
    }

    @Override
    void begin() throws IOException {
        line.append("{\"sessionId\":\"").append(sessionId).append('"');
        f(line, "projectHash", sha256(project));
        f(line, "startTime", ts());
        f(line, "lastUpdated", ts());
        line.append(",\"kind\":\"main\"}");
        emit();
        line.append("{\"$set\":{\"messages\":[{\"id\":\"").append(hex(32)).append("\",\"timestamp\":\"").append(ts())
                .append("\",\"type\":\"user\",\"content\":[{\"text\":");
        q(line, "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
                + "My operating system is: linux\n- **Workspace Directories:**\n  - " + project
                + "\n</session_context>").append("}]}]");
        f(line, "lastUpdated", ts()).append("}}");
        emit();
    }

    @Override
    void turn(String prompt, int turnIndex, int steps) throws IOException {
        line.append("{\"id\":\"").append(uuid(false)).append("\",\"timestamp\":\"").append(ts())
                .append("\",\"type\":\"user\",\"content\":[{\"text\":");
        q(line, prompt).append("}]}");
        emit();
        messages++;
        lastUpdated();
        for (int s = 0; s < steps; s++) {
            tick();
            boolean last = s == steps - 1;
            String id = uuid(false);
            StringBuilder head = new StringBuilder(4096);
            head.append("{\"id\":\"").append(id).append("\",\"timestamp\":\"").append(ts())
                    .append("\",\"type\":\"gemini\",\"content\":");
            q(head, reply()).append(",\"thoughts\":[");
            int thoughts = r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 0;
            for (int i = 0; i < thoughts; i++) {
                if (i > 0) {
                    head.append(',');
                }
                head.append("{\"subject\":");
                q(head, Vocabulary.word(r) + " " + Vocabulary.anyWord(r)).append(",\"description\":");
                q(head, thought()).append(",\"timestamp\":\"").append(ts()).append("\"}");
            }
            long in = 2_000 + r.nextInt(40_000);
            long cached = r.nextInt(2) == 0 ? 0 : r.nextInt((int) in);
            long out = 20 + r.nextInt(1_500);
            head.append("],\"tokens\":{\"input\":").append(in).append(",\"output\":").append(out)
                    .append(",\"cached\":").append(cached).append(",\"thoughts\":0,\"tool\":0,\"total\":")
                    .append(in + out).append("},\"model\":\"gemini-2.5-pro\"");
            line.append(head).append('}');
            emit();
            messages += 1 + thoughts;
            lastUpdated();
            if (!last) {
                tick();
                String callId = "run_shell_command__run_shell_command_" + clock + "_" + s;
                String command = command();
                String output = toolOutput();
                boolean failed = r.nextInt(15) == 0;
                line.append(head).append(",\"toolCalls\":[{\"id\":\"").append(callId)
                        .append("\",\"name\":\"run_shell_command\",\"args\":{\"command\":");
                q(line, command).append("},\"result\":[{\"functionResponse\":{\"id\":\"").append(callId)
                        .append("\",\"name\":\"run_shell_command\",\"response\":{\"output\":");
                q(line, output).append("}}}],\"status\":\"").append(failed ? "error" : "success")
                        .append("\",\"timestamp\":\"").append(ts()).append("\",\"resultDisplay\":");
                q(line, output).append(",\"description\":");
                q(line, command).append(",\"displayName\":\"Shell\",\"renderOutputAsMarkdown\":false}]}");
                emit();
                messages += 2;
                line.append("{\"id\":\"").append(uuid(false)).append("\",\"timestamp\":\"").append(ts())
                        .append("\",\"type\":\"user\",\"content\":[{\"functionResponse\":{\"id\":\"").append(callId)
                        .append("\",\"name\":\"run_shell_command\",\"response\":{\"output\":");
                q(line, output).append("}}}]}");
                emit();
                lastUpdated();
            }
        }
    }

    @Override
    void end() throws IOException {
        if (title() != null) {
            line.append("{\"$set\":{\"summary\":");
            q(line, title()).append("}}");
            emit();
        }
    }
}
