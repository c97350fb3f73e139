package org.agentworkspace.core.providers;

import java.util.Locale;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.json.JsonMappers;

/**
 * The formats of config files and how a write is validated: JSON must be one JSON object (comments and trailing
 * commas only where the CLI accepts them: gemini, qwen and opencode read JSON with comments); TOML must parse;
 * env files are {@code NAME=value} lines, blank lines and {@code #} comments; text files only must not contain NUL.
 * A failure is 400 {@code CONFIG_VALIDATION_FAILED} with the parser's message and position.
 */
enum ConfigFormat {
    JSON("json"), JSON_WITH_COMMENTS("json"), TOML("toml"), ENV("env"), TEXT("text");

    /** The format a descriptor names. */
    static ConfigFormat of(org.agentworkspace.api.provider.ProviderDescriptor.FileFormat f) {
        return switch (f) {
            case JSON -> JSON;
            case JSON_WITH_COMMENTS -> JSON_WITH_COMMENTS;
            case TOML -> TOML;
            case ENV -> ENV;
            case TEXT -> TEXT;
        };
    }

    private static final JsonMapper STRICT = JsonMappers.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();
    private static final JsonMapper COMMENTS = JsonMappers.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();
    static final TomlMapper TOML_MAPPER = JsonMappers.tomlBuilder()
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();
    private static final Pattern ENV_LINE = Pattern.compile("(export\\s+)?[A-Za-z_][A-Za-z0-9_]*\\s*=.*");

    private final String wire;

    ConfigFormat(String wire) {
        this.wire = wire;
    }

    String wire() {
        return wire;
    }

    /** The JSON reader of this format (strict or with comments). */
    JsonMapper jsonMapper() {
        return this == JSON_WITH_COMMENTS ? COMMENTS : STRICT;
    }

    /** Validates {@code content}; throws 400 {@code CONFIG_VALIDATION_FAILED} with the parser's message. */
    void validate(String content) {
        if (content.indexOf('\0') >= 0) {
            throw invalid("the content contains a NUL character");
        }
        switch (this) {
            case JSON, JSON_WITH_COMMENTS -> {
                if (content.isBlank()) {
                    return;
                }
                JsonNode n;
                try {
                    n = jsonMapper().readTree(content);
                } catch (JsonProcessingException e) {
                    throw invalid("invalid JSON: " + describe(e));
                }
                if (n == null || !n.isObject()) {
                    throw invalid("invalid JSON: the file must hold one JSON object");
                }
            }
            case TOML -> {
                try {
                    TOML_MAPPER.readTree(content);
                } catch (JsonProcessingException e) {
                    throw invalid("invalid TOML: " + describe(e));
                } catch (RuntimeException e) {
                    throw invalid("invalid TOML");
                }
            }
            case ENV -> {
                String[] lines = content.split("\n", -1);
                for (int i = 0; i < lines.length; i++) {
                    String l = lines[i].strip();
                    if (l.isEmpty() || l.startsWith("#")) {
                        continue;
                    }
                    if (!ENV_LINE.matcher(l).matches()) {
                        throw invalid("invalid env file: line " + (i + 1) + " is not NAME=value");
                    }
                }
            }
            case TEXT -> {
            }
        }
    }

    private static String describe(JsonProcessingException e) {
        String msg = e.getOriginalMessage() == null ? "parse error" : e.getOriginalMessage();
        msg = msg.replaceAll("\\s+", " ").strip();
        if (msg.length() > 300) {
            msg = msg.substring(0, 300) + "…";
        }
        JsonLocation loc = e.getLocation();
        if (loc != null && loc.getLineNr() > 0) {
            msg += " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
        }
        return msg;
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(ProviderErrorCodes.CONFIG_VALIDATION_FAILED, message);
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
