package io.tablestorecdc.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;

/** The checkout's documentation pages and build files, as the docs tests read them. */
public final class DocPages {

    /** The checkout's root (the tests run in the e2e module's directory). */
    public static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    /** Where the pages say the standalone emulator jar is, relative to the checkout. */
    public static final String JAR_AS_DOCUMENTED =
            "tablestore-emulator/target/tablestore-emulator.jar";

    private DocPages() {}

    /** The text of a file of the checkout, e.g. {@code docs/getting-started.md}. */
    public static String read(String relative) throws IOException {
        return Files.readString(REPO.resolve(relative), StandardCharsets.UTF_8);
    }

    /** A build file of the checkout, e.g. {@code e2e/pom.xml}, as a DOM. */
    public static Document pom(String relative) throws Exception {
        return DocumentBuilderFactory.newInstance()
                .newDocumentBuilder()
                .parse(REPO.resolve(relative).toFile());
    }

    /** The text at {@code path} (XPath) of a build file; it must not be empty. */
    public static String xpath(Document pom, String path) throws Exception {
        String value = XPathFactory.newInstance().newXPath().evaluate(path, pom);
        assertThat(value).as("%s in the pom", path).isNotEmpty();
        return value;
    }

    /** The first fenced block opened with {@code fence} (e.g. {@code "```\n"}) after {@code at}. */
    public static String block(String page, String at, String fence) {
        int section = page.indexOf(at);
        assertThat(section).as("the page's %s", at).isNotNegative();
        int open = page.indexOf(fence, section);
        assertThat(open).as("a %s block after %s", fence.strip(), at).isNotNegative();
        open += fence.length();
        return page.substring(open, page.indexOf("\n```", open - 1) + 1);
    }

    /**
     * The runnable emulator jar this build made: the build names it in {@code tsc.emulator.jar}
     * (its build directory may not be {@code target}).
     */
    public static Path emulatorJar() {
        Path jar =
                Path.of(
                        System.getProperty(
                                "tsc.emulator.jar", REPO.resolve(JAR_AS_DOCUMENTED).toString()));
        assertThat(jar)
                .as(
                        "the standalone jar (built by the emulator module's package phase;"
                                + " run mvn -pl tablestore-emulator package -DskipTests)")
                .exists();
        return jar;
    }

    /**
     * Lays out {@code dir} so that commands naming the jar as the pages do ({@value
     * #JAR_AS_DOCUMENTED}, relative to the checkout) run there: the path is a link to the jar this
     * build made.
     */
    public static Path checkoutWithTheJar(Path dir) throws IOException {
        Path link = dir.resolve(JAR_AS_DOCUMENTED);
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, emulatorJar());
        return dir;
    }

    /**
     * The invocations of {@code command} that bash makes when it runs {@code script} with {@code
     * command} defined as a function that records its arguments: each invocation's arguments, as
     * the shell passes them (quotes removed, continuation lines joined). Nothing else of the script
     * may fail.
     */
    public static List<List<String>> invocations(String command, String script, Path dir)
            throws Exception {
        String recorder = command + "() { printf '\\1\\0'; printf '%s\\0' \"$@\"; }\n";
        Path out = dir.resolve(command + ".args");
        Process bash =
                new ProcessBuilder("bash", "-e", "-c", recorder + script)
                        .directory(dir.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        assertThat(bash.waitFor(60, TimeUnit.SECONDS)).as("bash ran %s", script).isTrue();
        assertThat(bash.exitValue()).as("exit code of %s", script).isZero();
        List<List<String>> calls = new ArrayList<>();
        for (String arg : Files.readString(out, StandardCharsets.UTF_8).split("\0")) {
            if (arg.equals("\1")) {
                calls.add(new ArrayList<>());
            } else {
                assertThat(calls).as("output of something other than %s", command).isNotEmpty();
                calls.get(calls.size() - 1).add(arg);
            }
        }
        return calls;
    }

    /**
     * The value of {@code -Dname=...} in {@code args}, split into arguments as the exec plugin
     * splits its {@code commandlineArgs} (at spaces; the value holds no quotes to honour).
     */
    public static List<String> property(List<String> args, String name) {
        String prefix = "-D" + name + "=";
        String value =
                args.stream()
                        .filter(a -> a.startsWith(prefix))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(prefix + " not in " + args))
                        .substring(prefix.length());
        assertThat(value).as("%s splits at spaces only", prefix).doesNotContain("\"", "'", "\t");
        assertThat(value).doesNotContain("\n");
        return Arrays.stream(value.strip().split(" +")).toList();
    }
}
