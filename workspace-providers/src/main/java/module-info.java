/** Adapters for the provider CLIs. Exports nothing: reached through the SPI only. */
module org.agentworkspace.providers {
    requires org.agentworkspace.api;
    requires com.fasterxml.jackson.databind;
}
