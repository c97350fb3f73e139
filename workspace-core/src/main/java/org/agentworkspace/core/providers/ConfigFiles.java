package org.agentworkspace.core.providers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.agentworkspace.api.WorkspaceException;

/**
 * The config files each CLI reads, per provider, addressed by opaque ids: settings, instruction files (CLAUDE.md,
 * AGENTS.md, GEMINI.md, QWEN.md), config.toml, opencode.json, env files. No other path is reachable: a client only
 * ever names a provider and an id from {@link #list}. Credential files (auth.json, .credentials.json,
 * oauth_creds.json) are deliberately not in the catalog.
 *
 * <p>A write is validated in the file's format first (400 {@code CONFIG_VALIDATION_FAILED} with the parser's
 * message), then replaces the file atomically; the previous content is kept in
 * {@code <dataDir>/providers/backups/<provider>/<fileId>.prev} (0600).
 */
public final class ConfigFiles {
    private final ProviderPaths paths;
    private final ProviderFiles files;

    ConfigFiles(ProviderPaths paths, ProviderFiles files) {
        this.paths = paths;
        this.files = files;
    }

    /** One catalog entry: where the file is, relative to the provider paths. */
    private record Spec(String fileId, String label, Function<ProviderPaths, Path> path, ConfigFormat format,
                        boolean readOnly) {
    }

    private static final Map<String, List<Spec>> CATALOG = Map.of(
            "claude", List.of(
                    new Spec("settings", "Claude Code user settings (settings.json)",
                            p -> p.home().resolve(".claude/settings.json"), ConfigFormat.JSON, false),
                    new Spec("instructions", "User instructions for every project (CLAUDE.md)",
                            p -> p.home().resolve(".claude/CLAUDE.md"), ConfigFormat.TEXT, false)),
            "codex", List.of(
                    new Spec("config", "Codex configuration (config.toml)",
                            p -> p.home().resolve(".codex/config.toml"), ConfigFormat.TOML, false),
                    new Spec("instructions", "Global instructions (AGENTS.md)",
                            p -> p.home().resolve(".codex/AGENTS.md"), ConfigFormat.TEXT, false)),
            "gemini", List.of(
                    new Spec("settings", "Gemini CLI settings (settings.json in the service's gemini home)",
                            ProviderPaths::geminiSettings, ConfigFormat.JSON_WITH_COMMENTS, false),
                    new Spec("instructions", "Global context (GEMINI.md)",
                            p -> p.geminiDir().resolve("GEMINI.md"), ConfigFormat.TEXT, false),
                    new Spec("env", "Environment file (.env)",
                            p -> p.geminiDir().resolve(".env"), ConfigFormat.ENV, false)),
            "qwen", List.of(
                    new Spec("settings", "Qwen Code user settings (settings.json)",
                            p -> p.home().resolve(".qwen/settings.json"), ConfigFormat.JSON_WITH_COMMENTS, false),
                    new Spec("instructions", "Global context (QWEN.md)",
                            p -> p.home().resolve(".qwen/QWEN.md"), ConfigFormat.TEXT, false),
                    new Spec("env", "Environment file (.env)",
                            p -> p.home().resolve(".qwen/.env"), ConfigFormat.ENV, false),
                    new Spec("system-settings", "System settings written by Agent Workspace before every run "
                            + "(read-only: overrides the user settings)",
                            p -> p.providerDir("qwen").resolve("system-settings.json"),
                            ConfigFormat.JSON_WITH_COMMENTS, true)),
            "opencode", List.of(
                    new Spec("config", "opencode global config (opencode.json)",
                            p -> p.xdgConfigHome().resolve("opencode/opencode.json"),
                            ConfigFormat.JSON_WITH_COMMENTS, false),
                    new Spec("instructions", "Global rules (AGENTS.md)",
                            p -> p.xdgConfigHome().resolve("opencode/AGENTS.md"), ConfigFormat.TEXT, false)),
            "cursor", List.of(
                    new Spec("cli-config", "Cursor agent configuration (cli-config.json)",
                            p -> p.home().resolve(".cursor/cli-config.json"), ConfigFormat.JSON, false)),
            "grok", List.of(
                    new Spec("user-settings", "Grok CLI user settings (user-settings.json)",
                            p -> p.home().resolve(".grok/user-settings.json"), ConfigFormat.JSON, false)));

    /** The provider's catalog with each file's current state. */
    public List<ConfigFileEntry> list(String provider) {
        ProviderFacts.of(provider);
        List<ConfigFileEntry> out = new ArrayList<>();
        for (Spec s : CATALOG.getOrDefault(provider, List.of())) {
            out.add(entry(s));
        }
        return out;
    }

    /** The file's content; a missing file reads as empty. */
    public ConfigFileContent read(String provider, String fileId) {
        Spec s = spec(provider, fileId);
        Path p = s.path().apply(paths);
        return files.locked(p, () -> {
            var text = files.read(p);
            return new ConfigFileContent(s.fileId(), paths.display(p), text.orElse(""), text.isPresent());
        });
    }

    /**
     * Validates and writes the file, keeping the previous content as the backup.
     *
     * @throws WorkspaceException.Forbidden {@code CONFIG_FILE_READ_ONLY} for a read-only entry
     * @throws WorkspaceException.Validation {@code CONFIG_VALIDATION_FAILED} when the content does not parse
     */
    public ConfigFileEntry write(String provider, String fileId, String content) {
        Spec s = spec(provider, fileId);
        if (s.readOnly()) {
            throw new WorkspaceException.Forbidden(ProviderErrorCodes.CONFIG_FILE_READ_ONLY,
                    s.label() + " is read-only");
        }
        if (content == null) {
            throw WorkspaceException.Validation.of("content is required");
        }
        if (content.length() > ProviderFiles.MAX_BYTES) {
            throw new WorkspaceException.PayloadTooLarge(org.agentworkspace.api.files.FileErrorCodes.FILE_TOO_LARGE,
                    "the content is larger than " + ProviderFiles.MAX_BYTES + " bytes");
        }
        s.format().validate(content);
        Path p = s.path().apply(paths);
        Path backup = paths.dataDir().resolve("providers").resolve("backups").resolve(provider)
                .resolve(s.fileId() + ".prev");
        return files.locked(p, () -> {
            files.write(p, content, backup);
            return entry(s);
        });
    }

    /** Where a catalog file is (for tests and for the MCP editor, which shares files with the catalog). */
    public Path path(String provider, String fileId) {
        return spec(provider, fileId).path().apply(paths);
    }

    private ConfigFileEntry entry(Spec s) {
        Path p = s.path().apply(paths);
        boolean exists = Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS);
        Long size = null;
        if (exists) {
            try {
                size = Files.size(p);
            } catch (IOException e) {
                exists = false;
            }
        }
        return new ConfigFileEntry(s.fileId(), paths.display(p), s.label(), exists, size, s.format().wire(),
                s.readOnly());
    }

    private static Spec spec(String provider, String fileId) {
        ProviderFacts.of(provider);
        for (Spec s : CATALOG.getOrDefault(provider, List.of())) {
            if (s.fileId().equals(fileId)) {
                return s;
            }
        }
        throw new WorkspaceException.NotFound(ProviderErrorCodes.CONFIG_FILE_NOT_FOUND, "no config file '"
                + ProviderFacts.printable(fileId) + "' for " + provider);
    }
}
