package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runnable {@code tablestore-emulator.jar} carries our LICENSE, the licences of its non-Apache
 * parts, and a NOTICE that names every artifact it bundles. Runs in the integration-test phase,
 * after the jar is built.
 */
class ShadedJarIT {

    /**
     * The build sets the jar's path only in the integration-test execution; a {@code -Dtest}
     * selection also runs this class in the test phase, before the jar is built, and skips it
     * there.
     */
    @BeforeAll
    static void onlyOnceTheJarIsBuilt() {
        assumeTrue(System.getProperty("tsc.shaded.jar") != null, "runs in integration-test");
    }

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        Path path = Path.of(System.getProperty("tsc.shaded.jar", "missing"));
        ShadedJarLicences.check(
                path,
                "tablestore-cdc Tablestore emulator",
                List.of("the Tablestore Java SDK", "io.netty:netty-codec-http"),
                List.of("LICENSE.protobuf", "LICENSE.slf4j"));
        try (JarFile jar = new JarFile(path.toFile())) {
            assertThat(ShadedJarLicences.text(jar, "META-INF/licenses/LICENSE.protobuf"))
                    .contains("Google Inc.");
            assertThat(ShadedJarLicences.text(jar, "META-INF/licenses/LICENSE.slf4j"))
                    .contains("QOS.ch");
        }
    }
}
