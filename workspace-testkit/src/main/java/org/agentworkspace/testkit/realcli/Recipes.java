package org.agentworkspace.testkit.realcli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Headless argv per CLI, in its machine-readable streaming mode; the prompt can never be read as an option. */
final class Recipes {

    private static final Pattern SESSION = Pattern.compile("\"(?:session_id|thread_id|sessionID)\"\\s*:\\s*\"([^\"]+)\"");

    private Recipes() {
    }

    static List<String> command(String id, String bin, String prompt, Optional<String> resume, boolean autoApprove) {
        List<String> a = new ArrayList<>();
        a.add(bin);
        switch (id) {
            case "claude" -> {
                a.addAll(List.of("-p", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5"));
                resume.ifPresent(s -> a.addAll(List.of("--resume", s)));
                if (autoApprove) {
                    a.addAll(List.of("--permission-mode", "acceptEdits"));
                }
                a.addAll(List.of("--", prompt));
            }
            case "codex" -> {
                a.add("exec");
                if (resume.isPresent()) {
                    a.add("resume");
                }
                a.addAll(List.of("--json", "--skip-git-repo-check"));
                resume.ifPresent(a::add);
                a.addAll(List.of("--", prompt));
            }
            case "gemini" -> {
                a.addAll(List.of("-o", "stream-json", "-m", "gemini-2.5-flash"));
                resume.ifPresent(s -> a.addAll(List.of("--resume", s)));
                if (autoApprove) {
                    a.add("--yolo");
                }
                a.add("--prompt=" + prompt);
            }
            case "qwen" -> {
                a.addAll(List.of("-o", "stream-json", "--auth-type", "openai", "-m", "qwen3-coder-plus"));
                resume.ifPresent(s -> a.addAll(List.of("--resume", s)));
                if (autoApprove) {
                    // also needed to be OFFERED write_file/run_shell_command at all in headless mode
                    a.add("--yolo");
                }
                // qwen ignores a positional prompt after "--": the =-form keeps it a value
                a.add("--prompt=" + prompt);
            }
            case "opencode" -> {
                a.addAll(List.of("run", "--format", "json"));
                resume.ifPresent(s -> a.addAll(List.of("--session", s)));
                if (autoApprove) {
                    a.add("--auto");
                }
                a.addAll(List.of("--", prompt));
            }
            case "grok" -> a.add("--prompt=" + prompt);
            default -> throw new IllegalArgumentException("no recipe for " + id);
        }
        return List.copyOf(a);
    }

    static Optional<String> sessionId(String stdout) {
        Matcher m = SESSION.matcher(stdout);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
