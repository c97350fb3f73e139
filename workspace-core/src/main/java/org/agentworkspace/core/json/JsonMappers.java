package org.agentworkspace.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;

/**
 * The one place the engine and the server get their Jackson mappers from (docs/architecture.md, "JSON"): an
 * ArchUnit rule (ArchitectureTest) fails when other main code constructs an {@code ObjectMapper} or calls
 * {@code JsonMapper.builder()}. A mapper is thread-safe once built, so the plain one is shared; code that needs
 * features of its own builds its mapper once, from {@link #builder()}, and keeps it.
 *
 * <p>The provider adapters (workspace-providers) depend on the API module only, not on the engine: their one mapper is
 * {@code org.agentworkspace.providers.common.Json}, held by the same rule.
 */
public final class JsonMappers {
    private static final ObjectMapper SHARED = new ObjectMapper();

    private JsonMappers() {
    }

    /** Jackson's defaults, shared: never reconfigure it (build a mapper of your own from {@link #builder()}). */
    public static ObjectMapper shared() {
        return SHARED;
    }

    /** A builder for a mapper with features of its own (strict request bodies, lenient config files ...). */
    public static JsonMapper.Builder builder() {
        return JsonMapper.builder();
    }

    /** A builder for a TOML mapper (the codex config file). */
    public static TomlMapper.Builder tomlBuilder() {
        return TomlMapper.builder();
    }

    /** A mapper over another factory: another format (YAML, TOML), or JSON with limits of its own. */
    public static ObjectMapper over(JsonFactory factory) {
        return new ObjectMapper(factory);
    }
}
