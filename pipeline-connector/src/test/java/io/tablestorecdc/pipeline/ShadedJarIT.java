package io.tablestorecdc.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attached shaded jar drops into a Flink CDC distribution's {@code lib/}: it registers the
 * pipeline source, holds it with the Flink source, the core and the SDK (whose own dependencies are
 * relocated), brings no Flink or Flink CDC classes and no SQL factories, and carries our LICENSE
 * and a NOTICE that names what it bundles.
 */
class ShadedJarIT {

    /** Set by the build in the integration-test execution only (the jar exists from package). */
    @BeforeAll
    static void onlyOnceTheJarIsBuilt() {
        assumeTrue(System.getProperty("tsc.shaded.jar") != null, "runs in integration-test");
    }

    private static Path jar() {
        return Path.of(System.getProperty("tsc.shaded.jar", "missing"));
    }

    @Test
    void registersThePipelineSourceAndHoldsTheSourceTheCoreAndTheSdkButNoFlink()
            throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            List<String> names = jar.stream().map(JarEntry::getName).toList();

            assertThat(text(jar, "META-INF/services/org.apache.flink.cdc.common.factories.Factory"))
                    .contains(TablestoreDataSourceFactory.class.getName());
            assertThat(names)
                    .contains(
                            "io/tablestorecdc/pipeline/TablestoreDataSource.class",
                            "io/tablestorecdc/flink/source/TablestoreCdcSource.class",
                            "io/tablestorecdc/checkpoint/tunnel/SdkTunnelProxy.class",
                            "com/alicloud/openservices/tablestore/TunnelClient.class",
                            "io/tablestorecdc/shaded/com/google/common/collect/ImmutableList.class");
            assertThat(names)
                    .noneMatch(n -> n.startsWith("org/apache/flink/"))
                    .noneMatch(n -> n.startsWith("com/google/common/"))
                    .noneMatch(n -> n.startsWith("org/slf4j/"))
                    .doesNotContain("META-INF/services/org.apache.flink.table.factories.Factory");
        }
    }

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        ShadedJarLicences.check(
                jar(),
                "tablestore-cdc pipeline connector",
                List.of("the Tablestore Java SDK", "com.google.protobuf:protobuf-java"),
                List.of("LICENSE.protobuf"));
    }

    private static String text(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
