package io.tablestorecdc.flink.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tablestorecdc.emulator.testkit.ShadedJarLicences;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attached shaded jar drops into a stock Flink: it holds the connector, the core and the SDK,
 * relocates the SDK's own dependencies, brings no Flink, slf4j or log4j classes, and carries our
 * LICENSE and a NOTICE that names what it bundles.
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

    private static final List<String> RELOCATED =
            List.of(
                    "com/google/common/",
                    "com/google/gson/",
                    "org/joda/time/",
                    "com/lmax/disruptor/",
                    "com/github/benmanes/caffeine/",
                    "org/apache/commons/codec/",
                    "org/apache/commons/logging/");

    /**
     * Classes whose only remaining mention is a string literal the relocation cannot see (a
     * resource name pattern of commons-codec's phonetic rules, which the SDK does not use).
     */
    private static final List<String> KNOWN_LITERALS =
            List.of("io/tablestorecdc/shaded/org/apache/commons/codec/language/bm/Lang.class");

    private static Path jar() {
        Path jar = Path.of(System.getProperty("tsc.shaded.jar", "missing"));
        assertThat(jar).as("the shaded jar (run through mvn verify)").exists();
        return jar;
    }

    @Test
    void holdsTheConnectorTheCoreAndTheSdkButNoFlink() throws IOException {
        List<String> names = entries();

        assertThat(names)
                .contains(
                        "io/tablestorecdc/flink/source/TablestoreCdcSource.class",
                        "io/tablestorecdc/checkpoint/tunnel/SdkTunnelProxy.class",
                        "com/alicloud/openservices/tablestore/TunnelClient.class");
        assertThat(names)
                .noneMatch(n -> n.startsWith("org/apache/flink/"))
                .noneMatch(n -> n.startsWith("org/slf4j/"))
                .noneMatch(n -> n.startsWith("org/apache/logging/log4j/"));
        for (String prefix : RELOCATED) {
            assertThat(names).as(prefix).noneMatch(n -> n.startsWith(prefix));
        }
    }

    @Test
    void everyReferenceToARelocatedPackageIsRewritten() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (JarFile jar = new JarFile(jar().toFile())) {
            Enumeration<JarEntry> all = jar.entries();
            while (all.hasMoreElements()) {
                JarEntry entry = all.nextElement();
                if (entry.getName().endsWith(".class")
                        && !KNOWN_LITERALS.contains(entry.getName())) {
                    String text = read(jar, entry);
                    for (String prefix : RELOCATED) {
                        if (text.replace("io/tablestorecdc/shaded/" + prefix, "")
                                .contains(prefix)) {
                            offenders.add(entry.getName() + " -> " + prefix);
                        }
                    }
                }
            }
        }
        assertThat(offenders).isEmpty();
    }

    @Test
    void registersTheSqlFactory() throws IOException {
        try (JarFile jar = new JarFile(jar().toFile())) {
            JarEntry services =
                    jar.getJarEntry("META-INF/services/org.apache.flink.table.factories.Factory");
            assertThat(services).isNotNull();
            assertThat(read(jar, services))
                    .contains("io.tablestorecdc.flink.table.TablestoreCdcTableFactory");
        }
    }

    @Test
    void carriesOurLicenseAndANoticeNamingEveryBundledArtifact() throws IOException {
        ShadedJarLicences.check(
                jar(),
                "tablestore-cdc Flink connector",
                List.of("the Tablestore Java SDK", "com.google.protobuf:protobuf-java"),
                List.of("LICENSE.protobuf"));
    }

    private static List<String> entries() throws IOException {
        List<String> names = new ArrayList<>();
        try (JarFile jar = new JarFile(jar().toFile())) {
            jar.stream().forEach(e -> names.add(e.getName()));
        }
        return names;
    }

    private static JarEntry entry(JarFile jar, String name) {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        return entry;
    }

    private static String read(JarFile jar, JarEntry entry) throws IOException {
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
