package org.agentworkspace.core.providers;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.ProviderId;

/**
 * What provider management knows about one built-in provider, independent of this machine.
 *
 * @param id              the wire id
 * @param displayName     a human-readable name
 * @param binary          the file name of the CLI's binary
 * @param npmPackage      the npm package that installs it, or {@code null} when it is not on npm (cursor)
 * @param installHint     how to install it by hand when {@code npmPackage} is null
 * @param baseUrlAllowed  whether the adapter accepts an endpoint override
 * @param mcp             whether the CLI reads MCP server entries we can write (user and local scope)
 * @param modelApi        the model-list endpoint family used to refresh the catalog when a key is stored
 * @param builtinModels   the built-in catalog (model ids as the CLI's {@code --model} takes them)
 */
public record ProviderFacts(String id, String displayName, String binary, String npmPackage, String installHint,
                            boolean baseUrlAllowed, boolean mcp, ModelApi modelApi, List<BuiltinModel> builtinModels) {

    public ProviderFacts {
        Objects.requireNonNull(id, "id");
        builtinModels = List.copyOf(builtinModels);
    }

    /** The model-list endpoint family. */
    public enum ModelApi {
        /** {@code GET <base>/v1/models}, {@code x-api-key}, {@code anthropic-version}. */
        ANTHROPIC,
        /** {@code GET <base>/models} (the base includes {@code /v1}), {@code Authorization: Bearer}. */
        OPENAI,
        /** {@code GET <base>/v1beta/models}, {@code x-goog-api-key}. */
        GEMINI,
        /** No endpoint: the built-in catalog only. */
        NONE
    }

    /** A model of the built-in catalog. */
    public record BuiltinModel(String model, String name, Integer contextWindow) {
    }

    /** The seven built-in providers, in wire order. */
    public static final List<ProviderFacts> ALL = List.of(
            new ProviderFacts("claude", "Claude Code", "claude", "@anthropic-ai/claude-code", null, true, true,
                    ModelApi.ANTHROPIC, List.of(
                            new BuiltinModel("sonnet", "Claude Sonnet (latest)", 200_000),
                            new BuiltinModel("opus", "Claude Opus (latest)", 200_000),
                            new BuiltinModel("haiku", "Claude Haiku (latest)", 200_000),
                            new BuiltinModel("sonnet[1m]", "Claude Sonnet, 1M context", 1_000_000),
                            new BuiltinModel("opusplan", "Opus for planning, Sonnet for edits", 200_000),
                            new BuiltinModel("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000))),
            new ProviderFacts("cursor", "Cursor Agent", "cursor-agent", null,
                    "cursor-agent is not published on npm; install it with Cursor's installer "
                            + "(curl https://cursor.com/install -fsS | bash) as the service user, or point "
                            + "AW_CURSOR_PATH at the binary",
                    false, true, ModelApi.NONE, List.of(
                            new BuiltinModel("auto", "Auto", null),
                            new BuiltinModel("composer-2.5", "Composer 2.5", null),
                            new BuiltinModel("gpt-5.4", "GPT-5.4", null),
                            new BuiltinModel("claude-4.5-sonnet", "Claude 4.5 Sonnet", null),
                            new BuiltinModel("gemini-3.1-pro", "Gemini 3.1 Pro", null))),
            new ProviderFacts("codex", "OpenAI Codex", "codex", "@openai/codex", null, true, true, ModelApi.OPENAI,
                    List.of(
                            new BuiltinModel("gpt-5.5", "GPT-5.5", 400_000),
                            new BuiltinModel("gpt-5.4", "GPT-5.4", 400_000),
                            new BuiltinModel("gpt-5.4-mini", "GPT-5.4 mini", 400_000),
                            new BuiltinModel("gpt-5.3-codex", "GPT-5.3 Codex", 400_000),
                            new BuiltinModel("o4-mini", "o4-mini", 200_000))),
            new ProviderFacts("gemini", "Gemini CLI", "gemini", "@google/gemini-cli", null, true, true,
                    ModelApi.GEMINI, List.of(
                            new BuiltinModel("auto", "Auto (router)", null),
                            new BuiltinModel("gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)", 1_048_576),
                            new BuiltinModel("gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576),
                            new BuiltinModel("gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576),
                            new BuiltinModel("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", 1_048_576))),
            new ProviderFacts("qwen", "Qwen Code", "qwen", "@qwen-code/qwen-code", null, true, true, ModelApi.OPENAI,
                    List.of(
                            new BuiltinModel("qwen3-coder-plus", "Qwen3 Coder Plus", 1_000_000),
                            new BuiltinModel("qwen3-coder-flash", "Qwen3 Coder Flash", 1_000_000),
                            new BuiltinModel("qwen3-max", "Qwen3 Max", 262_144),
                            new BuiltinModel("qwen3.5-plus", "Qwen3.5 Plus", 1_000_000))),
            new ProviderFacts("opencode", "opencode", "opencode", "opencode-ai", null, true, true, ModelApi.OPENAI,
                    List.of(
                            new BuiltinModel("opencode/big-pickle", "OpenCode Zen: Big Pickle", null),
                            new BuiltinModel("anthropic/claude-sonnet-4-5", "Anthropic: Claude Sonnet 4.5", 200_000),
                            new BuiltinModel("openai/gpt-5.4", "OpenAI: GPT-5.4", 400_000),
                            new BuiltinModel("google/gemini-2.5-pro", "Google: Gemini 2.5 Pro", 1_048_576))),
            new ProviderFacts("grok", "Grok CLI", "grok", "@vibe-kit/grok-cli", null, true, false, ModelApi.OPENAI,
                    List.of(
                            new BuiltinModel("grok-code-fast-1", "Grok Code Fast 1", 256_000),
                            new BuiltinModel("grok-4", "Grok 4", 256_000),
                            new BuiltinModel("grok-4-fast", "Grok 4 Fast", 2_000_000))));

    /** The facts of a built-in provider. */
    public static Optional<ProviderFacts> find(String id) {
        return ProviderId.find(id).flatMap(p -> ALL.stream().filter(f -> f.id.equals(p.wireId())).findFirst());
    }

    /** The facts of a built-in provider, or 404 {@code PROVIDER_NOT_FOUND}. */
    public static ProviderFacts of(String id) {
        return find(id).orElseThrow(() -> new WorkspaceException.NotFound(ProviderErrorCodes.PROVIDER_NOT_FOUND,
                "no provider '" + printable(id) + "'; known: claude, cursor, codex, gemini, qwen, opencode, grok"));
    }

    /** Whether an npm install job can install it. */
    public boolean installable() {
        return npmPackage != null;
    }

    static String printable(String s) {
        if (s == null) {
            return "";
        }
        String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
