package org.agentworkspace.core.providers;

/**
 * One model a provider can run.
 *
 * @param id            {@code <provider>/<model>}; the part after the first {@code /} is what a run passes as its
 *                      model (for opencode it is itself {@code vendor/model})
 * @param name          a display name
 * @param contextWindow input tokens, or {@code null} when unknown
 * @param source        {@code builtin} (the catalog shipped with the service) or {@code endpoint} (the provider's
 *                      model-list endpoint)
 */
public record ModelEntry(String id, String name, Integer contextWindow, String source) {
    /** The model as a run takes it. */
    public String model() {
        return id.substring(id.indexOf('/') + 1);
    }
}
