package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.tablestorecdc.checkpoint.testing.ApiSignatures;
import org.junit.jupiter.api.Test;

/**
 * Every public type of the pipeline connector is marked as API ({@code @PublicEvolving}) or
 * {@code @Internal}, and an API signature names no internal type of the connectors or the core.
 */
class ApiBoundaryTest {

    private static final JavaClasses PIPELINE =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .importPackages("io.tablestorecdc.pipeline");

    @Test
    void everyPublicTypeIsMarkedAsApiOrInternal() {
        assertThat(ApiSignatures.unmarked(PIPELINE)).isEmpty();
    }

    @Test
    void anApiSignatureNamesOnlyApiTypes() {
        assertThat(ApiSignatures.leaks(PIPELINE, type -> false)).isEmpty();
    }
}
