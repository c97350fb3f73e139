/**
 * Provider management: which agent CLIs are installed and which binary a run will spawn
 * ({@link org.agentworkspace.core.providers.ProviderManagement#resolveBinary}), their stored credentials (sealed, one
 * per provider, handed only to that provider's children through
 * {@link org.agentworkspace.core.providers.ProviderManagement#credentialsFor}), model catalogs, npm install jobs into
 * {@code <dataDir>/cli-bin}, the catalog of config files each CLI reads, and MCP server entries in each CLI's native
 * file and shape. docs/provider-management.md describes the rules; nothing here knows HTTP.
 */
package org.agentworkspace.core.providers;
