package org.agentworkspace.core.providers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.ProviderDescriptor;

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

    private final ProviderCatalog catalog;

    ConfigFiles(ProviderPaths paths, ProviderFiles files, ProviderCatalog catalog) {
        this.paths = paths;
        this.files = files;
        this.catalog = catalog;
    }

    /** One catalog entry: a descriptor's config file of one provider. */
    private record Spec(String provider, ProviderDescriptor.ConfigFile file) {
        String fileId() {
            return file.id();
        }

        String label() {
            return file.label();
        }

        boolean readOnly() {
            return file.readOnly();
        }

        ConfigFormat format() {
            return ConfigFormat.of(file.format());
        }
    }

    /** The provider's catalog with each file's current state. */
    public List<ConfigFileEntry> list(String provider) {
        ProviderFacts f = catalog.require(provider);
        List<ConfigFileEntry> out = new ArrayList<>();
        for (ProviderDescriptor.ConfigFile file : f.descriptor().configFiles()) {
            out.add(entry(new Spec(provider, file)));
        }
        return out;
    }

    /** The file's content; a missing file reads as empty. */
    public ConfigFileContent read(String provider, String fileId) {
        Spec s = spec(provider, fileId);
        Path p = path(s);
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
        Path p = path(s);
        Path backup = paths.dataDir().resolve("providers").resolve("backups").resolve(provider)
                .resolve(s.fileId() + ".prev");
        return files.locked(p, () -> {
            files.write(p, content, backup);
            return entry(s);
        });
    }

    /** Where a catalog file is (for tests and for the MCP editor, which shares files with the catalog). */
    public Path path(String provider, String fileId) {
        return path(spec(provider, fileId));
    }

    private Path path(Spec s) {
        return paths.resolve(s.provider(), s.file().location());
    }

    private ConfigFileEntry entry(Spec s) {
        Path p = path(s);
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

    private Spec spec(String provider, String fileId) {
        for (ProviderDescriptor.ConfigFile file : catalog.require(provider).descriptor().configFiles()) {
            if (file.id().equals(fileId)) {
                return new Spec(provider, file);
            }
        }
        throw new WorkspaceException.NotFound(ProviderErrorCodes.CONFIG_FILE_NOT_FOUND, "no config file '"
                + ProviderFacts.printable(fileId) + "' for " + provider);
    }
}
