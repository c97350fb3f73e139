package org.agentworkspace.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module rules the build holds: the API sees only the JDK; nothing below the server sees Helidon; library code
 * never prints. Runs here because the server's test classpath holds every project module.
 */
class ArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void importProject() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.agentworkspace");
        // the rules below mean something only if the engine's classes were found
        org.junit.jupiter.api.Assertions.assertTrue(classes.contain("org.agentworkspace.core.auth.Accounts"));
        org.junit.jupiter.api.Assertions.assertTrue(classes.contain("org.agentworkspace.api.Scope"));
    }

    @Test
    void theApiDependsOnTheJdkOnly() {
        classes().that().resideInAPackage("org.agentworkspace.api..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "org.agentworkspace.api..")
                .check(classes);
    }

    @Test
    void nothingBelowTheServerSeesHelidon() {
        noClasses().that().resideInAnyPackage("org.agentworkspace.api..", "org.agentworkspace.core..",
                        "org.agentworkspace.providers..", "org.agentworkspace.git..")
                .should().dependOnClassesThat().resideInAPackage("io.helidon..")
                .check(classes);
    }

    @Test
    void theEngineDoesNotKnowTheServer() {
        noClasses().that().resideInAnyPackage("org.agentworkspace.api..", "org.agentworkspace.core..",
                        "org.agentworkspace.providers..", "org.agentworkspace.git..")
                .should().dependOnClassesThat().resideInAPackage("org.agentworkspace.server..")
                .check(classes);
    }

    /**
     * One component starts child processes: argv lists with absolute programs and an explicit environment are
     * enforced there, and nothing else can bypass it (JGit's own process starts are disabled by NoExecFS, which only
     * names ProcessBuilder in the signatures it overrides).
     */
    @Test
    void onlyTheSpawnerStartsProcesses() {
        org.junit.jupiter.api.Assertions.assertTrue(classes.contain("org.agentworkspace.core.process.Spawner"));
        noClasses().that().resideOutsideOfPackage("org.agentworkspace.core.process..")
                .and().resideOutsideOfPackage("org.agentworkspace.testkit..")
                .should().callMethod(ProcessBuilder.class, "start")
                .orShould().callMethod(Runtime.class, "exec", String.class)
                .orShould().callMethod(Runtime.class, "exec", String[].class)
                .orShould().callConstructorWhere(com.tngtech.archunit.core.domain.JavaConstructorCall.Predicates
                        .target(com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(
                                com.tngtech.archunit.base.DescribedPredicate.describe("pty4j's builder",
                                        (com.tngtech.archunit.core.domain.JavaClass c) -> c.getName()
                                                .equals("com.pty4j.PtyProcessBuilder")))))
                .check(classes);
    }

    /**
     * One JSON mapper factory: the engine's and the server's mappers come from {@code core.json.JsonMappers}, the
     * provider adapters' (which depend on the API module only) from {@code providers.common.Json}. Nothing else
     * constructs an {@code ObjectMapper} (or a subclass: {@code JsonMapper}, {@code TomlMapper}, a YAML mapper) or calls
     * a mapper's {@code builder()}, so every mapper's configuration is found in one of the two. The testkit (test
     * support, not shipped) is not held to it.
     */
    @Test
    void onlyTheMapperFactoriesConstructObjectMappers() {
        org.junit.jupiter.api.Assertions.assertTrue(classes.contain("org.agentworkspace.core.json.JsonMappers"));
        com.tngtech.archunit.base.DescribedPredicate<com.tngtech.archunit.core.domain.JavaClass> mapper =
                com.tngtech.archunit.base.DescribedPredicate.describe("a Jackson ObjectMapper",
                        c -> c.isAssignableTo("com.fasterxml.jackson.databind.ObjectMapper"));
        noClasses().that().doNotHaveFullyQualifiedName("org.agentworkspace.core.json.JsonMappers")
                .and().doNotHaveFullyQualifiedName("org.agentworkspace.providers.common.Json")
                .and().resideOutsideOfPackage("org.agentworkspace.testkit..")
                .should().callConstructorWhere(com.tngtech.archunit.core.domain.JavaConstructorCall.Predicates
                        .target(com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(mapper)))
                .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                        com.tngtech.archunit.base.DescribedPredicate.describe("a mapper's builder()",
                                (com.tngtech.archunit.core.domain.AccessTarget.CodeUnitCallTarget t) ->
                                        t.getName().equals("builder") && mapper.test(t.getOwner()))))
                .check(classes);
    }

    /**
     * One SSE follower (issue 19, point 4): every server-sent event stream is written by {@code JournalStream}, so
     * the stream cap, the heartbeat, revocation and the one {@code Last-Event-ID} rule hold for every stream.
     */
    @Test
    void onlyTheJournalFollowerWritesServerSentEvents() {
        org.junit.jupiter.api.Assertions.assertTrue(classes.contain("org.agentworkspace.server.http.JournalStream"));
        noClasses().that().haveNameNotMatching("org\\.agentworkspace\\.server\\.http\\.JournalStream(\\$.*)?")
                .and().resideInAPackage("org.agentworkspace..")
                .and().resideOutsideOfPackage("org.agentworkspace.testkit..")
                .should().dependOnClassesThat().resideInAPackage("io.helidon.webserver.sse..")
                .check(classes);
    }

    @Test
    void libraryCodeNeverPrints() {
        noClasses().that().resideInAnyPackage("org.agentworkspace.api..", "org.agentworkspace.core..",
                        "org.agentworkspace.providers..", "org.agentworkspace.git..",
                        "org.agentworkspace.server.http..", "org.agentworkspace.server.routes..")
                .should().accessField(System.class, "out")
                .orShould().accessField(System.class, "err")
                .check(classes);
    }

    /**
     * Server classes reach runs only through the engine's {@code AgentRunService}: no server class depends on the
     * launcher ({@code AgentRuns}) or the run engine ({@code RunEngine}) at all, so starting a run, the provider
     * default, the owner columns, the visibility rule, the session rule, aborting (permission requests first) and
     * redaction exist once, in core. No exception is needed: {@code ServerConfig} configures runs through
     * {@code RunSettings} (a value), and the handlers follow runs through the service's journal and cursor.
     */
    @Test
    void serverHandlersReachRunsOnlyThroughTheRunService() {
        org.junit.jupiter.api.Assertions.assertTrue(classes.contain("org.agentworkspace.core.agent.AgentRunService"));
        noClasses().that().resideInAPackage("org.agentworkspace.server..")
                .should().dependOnClassesThat().haveFullyQualifiedName("org.agentworkspace.core.agent.AgentRuns")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.agentworkspace.core.runs.RunEngine")
                .orShould().callConstructorWhere(com.tngtech.archunit.base.DescribedPredicate.describe(
                        "new AgentRunRequest", (com.tngtech.archunit.core.domain.JavaConstructorCall c) -> c.getTarget()
                                .getOwner().getName().equals("org.agentworkspace.core.agent.AgentRunRequest")))
                .orShould().callMethod(org.agentworkspace.core.agent.AgentRunService.class, "runs")
                .because("the run use cases (start, visibility, paging, sessions, follow, abort, redaction) are the "
                        + "engine's AgentRunService")
                .check(classes);
    }
}
