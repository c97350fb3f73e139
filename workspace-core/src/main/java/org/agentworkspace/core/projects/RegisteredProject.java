package org.agentworkspace.core.projects;

import java.time.Instant;
import java.util.Objects;

/**
 * A project folder registered with the service.
 *
 * @param name the stable, URL-safe identifier routes use (see {@link ProjectRegistry#nameFor})
 * @param displayName what people see; the folder's name unless renamed
 * @param path the folder's absolute real path (symbolic links resolved when it was registered)
 * @param createdAt when it was registered
 */
public record RegisteredProject(String name, String displayName, String path, Instant createdAt) {
    public RegisteredProject {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
