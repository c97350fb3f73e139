package org.agentworkspace.core.providers;

/**
 * A provider's state on this machine.
 *
 * @param id            the provider id
 * @param installed     a binary was found (in the order the runs use) and {@code --version} ran successfully
 * @param authenticated a credential the CLI's child process will see exists: a stored key, or the CLI's own login
 *                      or config (docs/provider-management.md lists what counts per provider)
 * @param version       the version the CLI printed, or {@code null}
 * @param binaryPath    the binary a run would spawn, or {@code null}
 * @param authMethod    {@code stored-key}, {@code cli-login}, or {@code null} when not authenticated
 * @param authSource    where the credential was found (a path shown with {@code ~}, or a command), or {@code null}
 * @param effectiveSource what a run the asking account starts now would use: {@code own} (its own stored key),
 *                      {@code service} (the service-wide key), {@code cli-login} (the CLI's own login) or
 *                      {@code none}
 */
public record ProviderStatus(String id, boolean installed, boolean authenticated, String version, String binaryPath,
                             String authMethod, String authSource, String effectiveSource) {
}
