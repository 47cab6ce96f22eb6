package io.tablestorecdc.checkpoint;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The core must stay engine-neutral so that both connectors can share it unchanged. */
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
}
