package io.tablestorecdc.checkpoint.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Sections of the docs generated from the code, between {@code <!-- BEGIN GENERATED <name> -->} and
 * {@code <!-- END GENERATED <name> -->}: a test renders the section from the declarations and
 * {@link #check}s the page, which fails when the two differ. Run the test with {@code
 * -Ddocs.write=true} to write the rendered section into the page instead.
 */
public final class GeneratedDocs {

    /** The system property that makes {@link #check} write the page instead of comparing. */
    public static final String WRITE_PROPERTY = "docs.write";

    private GeneratedDocs() {}

    /** The page of the repository's {@code docs/} folder, as a module's tests see it. */
    public static Path page(String name) {
        return Path.of("..", "docs", name);
    }

    /**
     * Checks that {@code page}'s section {@code name} holds exactly {@code body}.
     *
     * @throws AssertionError when it differs or the page lacks the section, saying how to update
     */
    public static void check(Path page, String name, String body) throws IOException {
        String text = Files.readString(page, StandardCharsets.UTF_8);
        String begin = "<!-- BEGIN GENERATED " + name + " -->\n";
        String end = "<!-- END GENERATED " + name + " -->";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new AssertionError(
                    page + " has no section '" + name + "': add the lines\n" + begin + end);
        }
        String current = text.substring(from + begin.length(), to);
        if (current.equals(body)) {
            return;
        }
        if (Boolean.getBoolean(WRITE_PROPERTY)) {
            String updated = text.substring(0, from + begin.length()) + body + text.substring(to);
            Files.writeString(page, updated, StandardCharsets.UTF_8);
            return;
        }
        throw new AssertionError(
                page
                        + ", section '"
                        + name
                        + "', differs from the code it is generated from. Change the"
                        + " declarations in the code, not the page, then run this test with -D"
                        + WRITE_PROPERTY
                        + "=true to rewrite the section.\nExpected:\n"
                        + body
                        + "\nFound:\n"
                        + current);
    }
}
