package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.agentworkspace.testkit.mockllm.Conversation.ToolSpec;

/**
 * Decides the scripted answer for a request. Deterministic: the same request always gets the same answer.
 *
 * <p>Order: error marker, structured-output request, forced tool, tool-result follow-up, tool marker, long marker,
 * reply marker, otherwise the echo {@code MOCK-REPLY: <first words of the prompt>}.
 */
final class Planner {

    /** Fixed phrase every plain answer starts with. */
    static final String PHRASE = "MOCK-REPLY: ";
    private static final int ECHO_WORDS = 8;

    /** Names of file-writing tools, most specific first, as the real CLIs spell them. */
    private static final List<String> WRITE_TOOLS = List.of(
            "Write", "write_file", "write", "create_file", "WriteFile", "str_replace_based_edit_tool", "apply_patch");
    /** Names of shell tools as the real CLIs spell them. */
    private static final List<String> SHELL_TOOLS = List.of(
            "Bash", "exec_command", "shell", "shell_command", "run_shell_command", "bash", "run_terminal_cmd", "local_shell");
    private static final Set<String> PATH_PROPS = Set.of("file_path", "filePath", "path", "absolute_path", "target_file", "file");
    private static final Set<String> CONTENT_PROPS = Set.of("content", "file_text", "contents", "text", "new_str");
    private static final Set<String> COMMAND_PROPS = Set.of("command", "cmd");

    /** The decision: the reply and how long to wait before sending anything. */
    record Plan(Reply reply, long delayMs, Script script) {
    }

    Planner() {
    }

    Plan plan(Conversation c) {
        Script script = Script.parse(c.lastUserText());
        long delay = script.find("slow").map(m -> parseLong(m.arg(), 0)).orElse(0L);
        Optional<Script.Marker> error = script.find("error");
        if (error.isPresent()) {
            int status = (int) parseLong(error.get().arg(), 500);
            return new Plan(new Reply.Failure(status < 400 || status > 599 ? 500 : status,
                    "mock error " + status + " requested by the prompt"), delay, script);
        }
        if (c.jsonSchema().isPresent()) {
            return new Plan(new Reply.Text(List.of(fill(c.jsonSchema().get(), "").toString())), delay, script);
        }
        if (c.forcedTool().isPresent()) {
            Optional<ToolSpec> forced = c.tools().stream().filter(t -> t.name().equals(c.forcedTool().get())).findFirst();
            if (forced.isPresent()) {
                return new Plan(new Reply.ToolCall("", forced.get().name(), false,
                        fill(forced.get().parameters(), "").toString()), delay, script);
            }
        }
        if (c.toolResultTurn()) {
            return new Plan(text(PHRASE + "tool result: " + firstChars(c.toolResultText(), 60)), delay, script);
        }
        Optional<Script.Marker> tool = script.find("tool");
        if (tool.isPresent() && !c.tools().isEmpty()) {
            return new Plan(toolCall(tool.get(), c), delay, script);
        }
        Optional<Script.Marker> lng = script.find("long");
        if (lng.isPresent()) {
            int n = (int) Math.max(1, Math.min(1_000_000, parseLong(lng.get().arg(), 10)));
            List<String> deltas = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                deltas.add("chunk-" + i + " ");
            }
            return new Plan(new Reply.Text(deltas), delay, script);
        }
        Optional<Script.Marker> reply = script.find("reply");
        if (reply.isPresent()) {
            String t = reply.get().param("text").orElse(reply.get().arg());
            return new Plan(text(t), delay, script);
        }
        return new Plan(text(echo(script.plainText())), delay, script);
    }

    /** The deterministic echo answer for a prompt without markers. */
    static String echo(String plainPrompt) {
        String cleaned = plainPrompt.replace("\"", "").replace("'", "").strip();
        String[] words = cleaned.isEmpty() ? new String[0] : cleaned.split("\\s+");
        StringBuilder sb = new StringBuilder(PHRASE);
        for (int i = 0; i < Math.min(ECHO_WORDS, words.length); i++) {
            sb.append(i == 0 ? "" : " ").append(words[i]);
        }
        return sb.toString().strip();
    }

    /** Splits a text into word-sized deltas (space kept with the word before it). */
    static Reply.Text text(String t) {
        List<String> deltas = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < t.length(); i++) {
            if (t.charAt(i) == ' ') {
                deltas.add(t.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < t.length() || deltas.isEmpty()) {
            deltas.add(t.substring(start));
        }
        return new Reply.Text(deltas);
    }

    private Reply toolCall(Script.Marker marker, Conversation c) {
        String wanted = marker.arg().isEmpty() ? "write_file" : marker.arg();
        return switch (wanted) {
            case "write_file", "write" -> writeFile(marker, c);
            case "shell", "bash" -> shell(marker.param("command").orElse("echo hello-from-mock-tool"), c);
            default -> c.tools().stream().filter(t -> t.name().equals(wanted)).findFirst()
                    .<Reply>map(t -> new Reply.ToolCall(PHRASE + "calling " + t.name(), t.name(),
                            t.kind() == ToolSpec.Kind.CUSTOM,
                            t.kind() == ToolSpec.Kind.CUSTOM ? marker.param("input").orElse("")
                                    : paramsAsArgs(marker, t.parameters()).toString()))
                    .orElseGet(() -> text(PHRASE + "no tool named " + wanted + " was offered"));
        };
    }

    private Reply writeFile(Script.Marker marker, Conversation c) {
        String name = marker.param("path").orElse("mock_output.txt");
        String content = marker.param("content").orElse("written by the mock LLM");
        String path = name.startsWith("/") || c.cwd().isEmpty() ? name : c.cwd().get() + "/" + name;
        for (String candidate : WRITE_TOOLS) {
            Optional<ToolSpec> tool = c.tools().stream().filter(t -> t.name().equals(candidate)).findFirst();
            if (tool.isEmpty()) {
                continue;
            }
            ToolSpec t = tool.get();
            String preamble = PHRASE + "writing " + name;
            if (t.name().equals("apply_patch")) {
                // codex's apply_patch grammar wants paths relative to its cwd
                String patch = "*** Begin Patch\n*** Add File: " + name + "\n"
                        + content.lines().map(l -> "+" + l + "\n").reduce("", String::concat) + "*** End Patch\n";
                if (t.kind() == ToolSpec.Kind.CUSTOM) {
                    return new Reply.ToolCall(preamble, t.name(), true, patch);
                }
                ObjectNode args = JsonNodeFactory.instance.objectNode();
                args.put(firstProperty(t.parameters(), Set.of("input", "patch")).orElse("input"), patch);
                return new Reply.ToolCall(preamble, t.name(), false, args.toString());
            }
            if (t.name().equals("str_replace_based_edit_tool")) {
                ObjectNode args = JsonNodeFactory.instance.objectNode();
                args.put("command", "create").put("path", path).put("file_text", content);
                return new Reply.ToolCall(preamble, t.name(), false, args.toString());
            }
            ObjectNode args = fill(t.parameters(), "mock");
            args.put(firstProperty(t.parameters(), PATH_PROPS).orElse("file_path"), path);
            args.put(firstProperty(t.parameters(), CONTENT_PROPS).orElse("content"), content);
            return new Reply.ToolCall(preamble, t.name(), false, args.toString());
        }
        // no file tool offered: write it through the shell tool
        String cmd = "printf '%s\\n' '" + content.replace("'", "'\\''") + "' > '" + path.replace("'", "'\\''") + "'";
        return shell(cmd, c);
    }

    private Reply shell(String command, Conversation c) {
        for (String candidate : SHELL_TOOLS) {
            Optional<ToolSpec> tool = c.tools().stream().filter(t -> t.name().equals(candidate)).findFirst();
            if (tool.isEmpty()) {
                continue;
            }
            ToolSpec t = tool.get();
            if (t.kind() == ToolSpec.Kind.CUSTOM) {
                return new Reply.ToolCall(PHRASE + "running a command", t.name(), true, command);
            }
            ObjectNode args = fill(t.parameters(), "mock");
            String prop = firstProperty(t.parameters(), COMMAND_PROPS).orElse("command");
            JsonNode schema = t.parameters().path("properties").path(prop);
            if ("array".equalsIgnoreCase(schema.path("type").asText())) {
                ArrayNode argv = args.putArray(prop);
                argv.add("bash").add("-lc").add(command);
            } else {
                args.put(prop, command);
            }
            return new Reply.ToolCall(PHRASE + "running a command", t.name(), false, args.toString());
        }
        return text(PHRASE + "no shell tool was offered");
    }

    private static ObjectNode paramsAsArgs(Script.Marker marker, JsonNode unusedSchema) {
        ObjectNode args = JsonNodeFactory.instance.objectNode();
        marker.params().forEach(args::put);
        return args;
    }

    private static Optional<String> firstProperty(JsonNode schema, Set<String> names) {
        Iterator<String> it = schema.path("properties").fieldNames();
        while (it.hasNext()) {
            String n = it.next();
            if (names.contains(n)) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }

    /**
     * Builds a value that satisfies a JSON schema (as far as a mock needs): objects get their required (else all)
     * properties, enums their first value, numbers their minimum or 1. Two names are special because gemini's side
     * requests read them: {@code next_speaker} is "user", so the CLI stops after one answer.
     */
    ObjectNode fill(JsonNode schema, String defaultString) {
        JsonNode v = fillValue(schema, "", defaultString, 0);
        return v instanceof ObjectNode o ? o : JsonNodeFactory.instance.objectNode();
    }

    private JsonNode fillValue(JsonNode schema, String name, String defaultString, int depth) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (schema == null || schema.isMissingNode() || depth > 8) {
            return f.textNode(defaultString);
        }
        if (schema.has("enum") && schema.get("enum").isArray() && !schema.get("enum").isEmpty()) {
            if (name.equals("next_speaker")) {
                for (JsonNode e : schema.get("enum")) {
                    if (e.asText().equals("user")) {
                        return e;
                    }
                }
            }
            return schema.get("enum").get(0);
        }
        for (String alt : List.of("anyOf", "oneOf", "allOf")) {
            if (schema.has(alt) && schema.get(alt).isArray() && !schema.get(alt).isEmpty()) {
                return fillValue(schema.get(alt).get(0), name, defaultString, depth + 1);
            }
        }
        JsonNode typeNode = schema.path("type");
        String type = typeNode.isArray() && !typeNode.isEmpty() ? typeNode.get(0).asText() : typeNode.asText("");
        type = type.toLowerCase(Locale.ROOT);
        if (type.isEmpty() && schema.has("properties")) {
            type = "object";
        }
        switch (type) {
            case "object": {
                ObjectNode o = f.objectNode();
                JsonNode props = schema.path("properties");
                List<String> names = new ArrayList<>();
                if (schema.path("required").isArray() && !schema.path("required").isEmpty()) {
                    schema.get("required").forEach(r -> names.add(r.asText()));
                } else {
                    props.fieldNames().forEachRemaining(names::add);
                }
                for (String n : names) {
                    o.set(n, fillValue(props.path(n), n, defaultString, depth + 1));
                }
                return o;
            }
            case "array": {
                ArrayNode a = f.arrayNode();
                int min = schema.path("minItems").asInt(0);
                for (int i = 0; i < min; i++) {
                    a.add(fillValue(schema.path("items"), name, defaultString, depth + 1));
                }
                return a;
            }
            case "integer":
                return f.numberNode(Math.max(1, schema.path("minimum").asInt(1)));
            case "number":
                return f.numberNode(Math.max(1.0, schema.path("minimum").asDouble(1.0)));
            case "boolean":
                return f.booleanNode(false);
            default:
                if (name.equals("next_speaker")) {
                    return f.textNode("user");
                }
                return f.textNode(defaultString.isEmpty() ? "mock" : defaultString);
        }
    }

    private static String firstChars(String s, int n) {
        String oneLine = s.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= n ? oneLine : oneLine.substring(0, n);
    }

    private static long parseLong(String s, long dflt) {
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
