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

    @Test
    void libraryCodeNeverPrints() {
        noClasses().that().resideInAnyPackage("org.agentworkspace.api..", "org.agentworkspace.core..",
                        "org.agentworkspace.providers..", "org.agentworkspace.git..",
                        "org.agentworkspace.server.http..", "org.agentworkspace.server.routes..")
                .should().accessField(System.class, "out")
                .orShould().accessField(System.class, "err")
                .check(classes);
    }
}
