/** Examples of embedding the engine in a plain JVM program. */
module org.agentworkspace.examples {
    requires org.agentworkspace.core;

    exports org.agentworkspace.examples;
}
