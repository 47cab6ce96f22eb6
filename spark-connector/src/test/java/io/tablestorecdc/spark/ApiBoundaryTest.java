package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tablestorecdc.checkpoint.testing.ApiSignatures;
import org.junit.jupiter.api.Test;

/**
 * Every public type of the Flink connector is marked as API ({@code @PublicEvolving}) or
 * {@code @Internal}, and an API signature names no internal type of the connector or the core.
 */
class ApiBoundaryTest {

    private static final JavaClasses SPARK =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("io.tablestorecdc.spark");

    @Test
    void everyPublicTypeIsMarkedAsApiOrInternal() {
        assertThat(ApiSignatures.unmarked(SPARK)).isEmpty();
    }

    @Test
    void anApiSignatureNamesOnlyApiTypes() {
        assertThat(ApiSignatures.leaks(SPARK, type -> false)).isEmpty();
    }
}
