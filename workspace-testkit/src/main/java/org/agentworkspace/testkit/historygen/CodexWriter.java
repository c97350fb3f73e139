package org.agentworkspace.testkit.historygen;

import static org.agentworkspace.testkit.historygen.Json.f;
import static org.agentworkspace.testkit.historygen.Json.q;

import java.io.IOException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Codex CLI 0.169.0 ({@code .codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid v7>.jsonl}), shaped like the recorded
 * rollouts: envelopes {@code {timestamp, ordinal, type, payload}}, a {@code session_meta} with cwd and base
 * instructions, per turn {@code task_started}, {@code turn_context}, the injected user context and the prompt as
 * {@code response_item}s (skipped by the reader), the prompt as an {@code item_completed} {@code UserMessage},
 * reasoning summaries, {@code function_call}/{@code custom_tool_call} (apply_patch) with their outputs, running
 * {@code token_count}s, the answer as {@code AgentMessage} and assistant {@code message}, {@code task_complete}.
 * Titles go to {@code .codex/session_index.jsonl} (written by {@link HistoryGenerator} after all sessions).
 */
final class CodexWriter extends SessionWriter {
    private final String start;
    private long ordinal;
    private long totalIn;
    private long totalCached;
    private long totalOut;

    CodexWriter(HistoryGenerator.Plan plan, String project) {
        super(plan, project);
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(clock, 1000), 0, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder();
        sb.append(t.getYear()).append('/');
        pad(sb, t.getMonthValue(), 2).append('/');
        pad(sb, t.getDayOfMonth(), 2).append("/rollout-").append(t.getYear()).append('-');
        pad(sb, t.getMonthValue(), 2).append('-');
        pad(sb, t.getDayOfMonth(), 2).append('T');
        pad(sb, t.getHour(), 2).append('-');
        pad(sb, t.getMinute(), 2).append('-');
        pad(sb, t.getSecond(), 2);
        this.start = sb.toString();
    }

    @Override
    String sessionIdFor() {
        return uuid(true);
    }

    @Override
    String relativeFile() {
        return ".codex/sessions/" + start + "-" + sessionId + ".jsonl";
    }

    private void envelope(String type) {
        line.append("{\"timestamp\":\"").append(ts()).append("\",\"ordinal\":").append(ordinal++)
                .append(",\"type\":\"").append(type).append("\",\"payload\":{");
    }

    @Override
    void begin() throws IOException {
        envelope("session_meta");
        line.append("\"account_scoped\":true");
        f(line, "session_id", sessionId);
        f(line, "id", sessionId);
        f(line, "timestamp", ts());
        f(line, "cwd", project);
        line.append(",\"runtime_workspace_roots\":[");
        q(line, project).append(']');
        line.append(",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.169.0\",\"source\":\"cli\",")
                .append("\"thread_source\":\"user\",\"model_provider\":\"openai\",\"base_instructions\":{\"text\":");
        q(line, HistoryGenerator.CODEX_INSTRUCTIONS).append("}}}");
        emit();
    }

    @Override
    void turn(String prompt, int turnIndex, int steps) throws IOException {
        String turnId = uuid(true);
        envelope("event_msg");
        line.append("\"type\":\"task_started\"");
        f(line, "turn_id", turnId);
        line.append(",\"started_at\":").append(clock / 1000).append(",\"model_context_window\":258400}}");
        emit();
        envelope("turn_context");
        line.append("\"turn_id\":\"").append(turnId).append('"');
        f(line, "cwd", project);
        line.append(",\"approval_policy\":\"on-request\",\"model\":\"gpt-5.5\",\"summary\":\"auto\"}}");
        emit();
        if (turnIndex == 0) {
            envelope("response_item");
            line.append("\"type\":\"message\",\"id\":\"msg_").append(uuid(true)).append("\",\"role\":\"user\",")
                    .append("\"content\":[{\"type\":\"input_text\",\"text\":");
            q(line, "<environment_context>\n  <cwd>" + project + "</cwd>\n  <shell>bash</shell>\n"
                    + "</environment_context>").append("}]}}");
            emit();
        }
        envelope("response_item");
        line.append("\"type\":\"message\",\"id\":\"msg_").append(uuid(true)).append("\",\"role\":\"user\",")
                .append("\"content\":[{\"type\":\"input_text\",\"text\":");
        q(line, prompt).append("}]}}");
        emit();
        envelope("event_msg");
        line.append("\"type\":\"item_completed\"");
        f(line, "thread_id", sessionId);
        f(line, "turn_id", turnId);
        line.append(",\"item\":{\"type\":\"UserMessage\",\"id\":\"").append(uuid(true))
                .append("\",\"content\":[{\"type\":\"text\",\"text\":");
        q(line, prompt).append(",\"text_elements\":[]}]}}}");
        emit();
        messages++;
        String answer = null;
        for (int s = 0; s < steps; s++) {
            tick();
            boolean last = s == steps - 1;
            if (r.nextInt(3) == 0) {
                envelope("response_item");
                line.append("\"type\":\"reasoning\",\"id\":\"rs_").append(hex(32))
                        .append("\",\"summary\":[{\"type\":\"summary_text\",\"text\":");
                q(line, thought()).append("}],\"encrypted_content\":\"").append(hex(160)).append("\"}}");
                emit();
                messages++;
            }
            if (last) {
                answer = reply();
                envelope("event_msg");
                line.append("\"type\":\"item_completed\"");
                f(line, "thread_id", sessionId);
                f(line, "turn_id", turnId);
                String msgId = "msg_" + hex(24);
                line.append(",\"item\":{\"type\":\"AgentMessage\",\"id\":\"").append(msgId)
                        .append("\",\"content\":[{\"type\":\"Text\",\"text\":");
                q(line, answer).append("}]}}}");
                emit();
                envelope("response_item");
                line.append("\"type\":\"message\",\"status\":\"completed\",\"id\":\"").append(msgId)
                        .append("\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":");
                q(line, answer).append(",\"annotations\":[]}]}}");
                emit();
                messages++;
            } else {
                String callId = "call_" + hex(24);
                boolean patch = r.nextInt(4) == 0;
                envelope("response_item");
                if (patch) {
                    StringBuilder p = new StringBuilder(512);
                    String file = Vocabulary.filePath(r, ".").substring(2);
                    p.append("*** Begin Patch\n*** Update File: ").append(file).append("\n@@\n");
                    int n = 2 + r.nextInt(12);
                    for (int i = 0; i < n; i++) {
                        p.append(i % 3 == 0 ? '-' : '+');
                        Vocabulary.code(r, p, 1);
                    }
                    p.append("*** End Patch\n");
                    line.append("\"type\":\"custom_tool_call\",\"id\":\"ctc_").append(hex(24))
                            .append("\",\"status\":\"completed\",\"call_id\":\"").append(callId)
                            .append("\",\"name\":\"apply_patch\",\"input\":");
                    q(line, p).append("}}");
                } else {
                    StringBuilder args = new StringBuilder(128);
                    args.append("{\"cmd\":");
                    q(args, command()).append(",\"workdir\":");
                    q(args, project).append('}');
                    line.append("\"type\":\"function_call\",\"id\":\"fc_").append(hex(24))
                            .append("\",\"name\":\"exec_command\",\"arguments\":");
                    q(line, args).append(",\"call_id\":\"").append(callId).append("\"}}");
                }
                emit();
                messages++;
                tick();
                String output = patch ? "Success. Updated the following files:\nM " + Vocabulary.anyWord(r) + "\n"
                        : toolOutput();
                envelope("response_item");
                line.append("\"type\":\"").append(patch ? "custom_tool_call_output" : "function_call_output")
                        .append("\",\"call_id\":\"").append(callId).append("\",\"output\":");
                q(line, "Exit code: " + (r.nextInt(10) == 0 ? 1 : 0) + "\nWall time: " + r.nextInt(9)
                        + " seconds\nOutput:\n" + output).append("}}");
                emit();
                messages++;
            }
            long in = 2_000 + r.nextInt(40_000);
            long cached = r.nextInt(2) == 0 ? 0 : r.nextInt((int) in);
            long out = 20 + r.nextInt(1_500);
            totalIn += in;
            totalCached += cached;
            totalOut += out;
            envelope("event_msg");
            line.append("\"type\":\"token_count\",\"info\":{\"total_token_usage\":{\"input_tokens\":").append(totalIn)
                    .append(",\"cached_input_tokens\":").append(totalCached).append(",\"output_tokens\":")
                    .append(totalOut).append(",\"reasoning_output_tokens\":0,\"total_tokens\":")
                    .append(totalIn + totalOut).append("},\"last_token_usage\":{\"input_tokens\":").append(in)
                    .append(",\"cached_input_tokens\":").append(cached).append(",\"output_tokens\":").append(out)
                    .append(",\"reasoning_output_tokens\":0,\"total_tokens\":").append(in + out)
                    .append("},\"model_context_window\":258400}}}");
            emit();
        }
        envelope("event_msg");
        line.append("\"type\":\"task_complete\"");
        f(line, "turn_id", turnId);
        f(line, "last_agent_message", answer).append("}}");
        emit();
    }
}
