package io.tablestorecdc.checkpoint;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tablestorecdc.checkpoint.testing.ApiSignatures;
import org.junit.jupiter.api.Test;

/**
 * The core must stay engine-neutral so that both connectors can share it unchanged, and its
 * packages stay layered: values at the bottom, then the server's two APIs, then the rules over
 * them, and the consumer that assembles them on top. A package may use only the layers below it.
 */
class ArchitectureTest {

    private static final JavaClasses CORE =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("io.tablestorecdc.checkpoint");

    @Test
    void coreImportsNeitherSparkNorFlink() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.spark..", "org.apache.flink..", "scala..")
                .check(CORE);
    }

    @Test
    void onlyTheTunnelMetaAndTablePackagesAndTheWritersAdapterTouchTheSdk() {
        noClasses()
                .that()
                .resideOutsideOfPackages(
                        "io.tablestorecdc.checkpoint.tunnel..",
                        "io.tablestorecdc.checkpoint.meta..",
                        "io.tablestorecdc.checkpoint.table..")
                .and()
                .haveNameNotMatching(
                        "io\\.tablestorecdc\\.checkpoint\\.write\\.SdkTableWriteClient(\\$.*)?")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("com.alicloud.openservices.tablestore..")
                .check(CORE);
    }

    @Test
    void theCorePackagesUseOnlyTheLayersBelowThem() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitecture()
                .ignoreDependency(
                        com.tngtech.archunit.base.DescribedPredicate.alwaysTrue(),
                        com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage(
                                "io.tablestorecdc.checkpoint.annotation.."))
                .layer("annotation")
                .definedBy("io.tablestorecdc.checkpoint.annotation..")
                .layer("model")
                .definedBy("io.tablestorecdc.checkpoint.model..")
                .layer("lifecycle")
                .definedBy("io.tablestorecdc.checkpoint.lifecycle..")
                .layer("tunnel")
                .definedBy("io.tablestorecdc.checkpoint.tunnel..")
                .layer("meta")
                .definedBy("io.tablestorecdc.checkpoint.meta..")
                .layer("table")
                .definedBy("io.tablestorecdc.checkpoint.table..")
                .layer("write")
                .definedBy("io.tablestorecdc.checkpoint.write..")
                .layer("read")
                .definedBy("io.tablestorecdc.checkpoint.read..")
                .layer("gate")
                .definedBy("io.tablestorecdc.checkpoint.gate..")
                .layer("merge")
                .definedBy("io.tablestorecdc.checkpoint.merge..")
                .layer("settings")
                .definedBy("io.tablestorecdc.checkpoint.settings..")
                .layer("consumer")
                .definedBy("io.tablestorecdc.checkpoint.consumer..")
                .whereLayer("annotation")
                .mayNotAccessAnyLayer()
                .whereLayer("model")
                .mayNotAccessAnyLayer()
                .whereLayer("lifecycle")
                .mayOnlyAccessLayers("model")
                .whereLayer("tunnel")
                .mayOnlyAccessLayers("model", "lifecycle")
                .whereLayer("meta")
                .mayOnlyAccessLayers("model", "lifecycle", "tunnel")
                .whereLayer("table")
                .mayOnlyAccessLayers("model", "lifecycle", "tunnel")
                .whereLayer("write")
                .mayOnlyAccessLayers("model", "lifecycle", "tunnel")
                .whereLayer("read")
                .mayOnlyAccessLayers("model", "tunnel")
                .whereLayer("gate")
                .mayOnlyAccessLayers("model")
                .whereLayer("merge")
                .mayOnlyAccessLayers("model", "gate")
                .whereLayer("settings")
                .mayOnlyAccessLayers("model", "lifecycle", "tunnel", "meta", "merge", "write")
                .whereLayer("consumer")
                .mayOnlyAccessLayers(
                        "model", "lifecycle", "tunnel", "meta", "gate", "merge", "settings")
                .check(CORE);
    }

    @Test
    void everyPublicTypeIsMarkedAsApiOrInternal() {
        assertThat(ApiSignatures.unmarked(CORE)).isEmpty();
    }

    @Test
    void anApiSignatureNamesOnlyApiTypes() {
        assertThat(ApiSignatures.leaks(CORE, type -> false)).isEmpty();
    }

    @Test
    void theCorePackagesFormNoCycle() {
        slices().matching("io.tablestorecdc.checkpoint.(*)..")
                .should()
                .beFreeOfCycles()
                .check(CORE);
    }
}
