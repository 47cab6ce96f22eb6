package io.tablestorecdc.emulator.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

/**
 * What every shaded jar of the project must carry (the emulator's, each connector's, the command
 * line's): the project's LICENSE as it is at the repository root (system property {@code
 * tsc.license}), a NOTICE that names every artifact the jar bundles, the licence texts of the
 * bundled artifacts that need them under {@code META-INF/licenses/}, and none of the bundled
 * artifacts' own LICENSE / NOTICE files at their old places, where they would pass for ours.
 *
 * <p>Shared by the modules' {@code ShadedJarIT}s through the emulator's test jar.
 */
public final class ShadedJarLicences {

    private static final Pattern BUNDLED_LICENCE_FILES =
            Pattern.compile(
                    "(META-INF/)?(LICENSE|NOTICE)\\.txt|LICENSE|NOTICE|META-INF/DEPENDENCIES");

    private ShadedJarLicences() {}

    /**
     * Checks {@code jar}'s licence files.
     *
     * @param noticeHead how its NOTICE starts (the jar's name in the project)
     * @param noticeMentions what else its NOTICE names (a bundled library, the SDK's attribution)
     * @param licenceFiles {@code META-INF/licenses/} files the jar must carry
     */
    public static void check(
            Path jar, String noticeHead, List<String> noticeMentions, List<String> licenceFiles)
            throws IOException {
        assertThat(jar).as("the shaded jar (run through mvn verify)").exists();
        try (JarFile file = new JarFile(jar.toFile())) {
            assertThat(text(file, "META-INF/LICENSE"))
                    .isEqualTo(
                            Files.readString(
                                    Path.of(System.getProperty("tsc.license", "missing")),
                                    StandardCharsets.ISO_8859_1));
            String notice = text(file, "META-INF/NOTICE");
            assertThat(notice).startsWith(noticeHead).contains(noticeMentions);
            assertThat(bundledArtifacts(file))
                    .isNotEmpty()
                    .allSatisfy(a -> assertThat(notice).contains(a));
            for (String licence : licenceFiles) {
                assertThat(file.getJarEntry("META-INF/licenses/" + licence))
                        .as(licence)
                        .isNotNull();
            }
            assertThat(file.stream().map(JarEntry::getName))
                    .noneMatch(n -> BUNDLED_LICENCE_FILES.matcher(n).matches());
        }
    }

    /** The text of {@code name} in {@code jar}, which must hold it. */
    public static String text(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** groupId:artifactId of every bundled artifact that left its Maven metadata in the jar. */
    static List<String> bundledArtifacts(JarFile jar) throws IOException {
        List<String> artifacts = new ArrayList<>();
        for (JarEntry e : jar.stream().toList()) {
            if (e.getName().startsWith("META-INF/maven/")
                    && e.getName().endsWith("/pom.properties")) {
                Properties pom = new Properties();
                try (InputStream in = jar.getInputStream(e)) {
                    pom.load(in);
                }
                if (!pom.getProperty("groupId").equals("io.tablestorecdc")) {
                    artifacts.add(pom.getProperty("groupId") + ":" + pom.getProperty("artifactId"));
                }
            }
        }
        return artifacts;
    }
}
