package io.tablestorecdc.checkpoint.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the repository's Markdown pages (the README, docs/, the modules' READMEs)
 * names a file that exists and, with a {@code #fragment}, a heading of that page.
 */
class DocLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCE = Pattern.compile("```.*?```", Pattern.DOTALL);
    private static final Pattern HEADING = Pattern.compile("(?m)^#+\\s+(.*)$");

    @Test
    void everyRelativeLinkNamesAFileAndAHeadingThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        List<Path> pages;
        try (Stream<Path> files = Files.walk(ROOT)) {
            pages =
                    files.filter(p -> p.toString().endsWith(".md"))
                            .filter(p -> !ROOT.relativize(p).toString().contains("target"))
                            .filter(p -> !ROOT.relativize(p).startsWith("."))
                            .toList();
        }
        assertThat(pages).hasSizeGreaterThan(10);
        for (Path page : pages) {
            String text = FENCE.matcher(Files.readString(page)).replaceAll("");
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.startsWith("http") || target.startsWith("mailto:")) {
                    continue;
                }
                String file =
                        target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String fragment =
                        target.contains("#") ? target.substring(target.indexOf('#') + 1) : "";
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (!fragment.isEmpty()
                        && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(fragment)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    /** The fragments a page's headings have, as the repository host renders them. */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        try {
            Matcher heading = HEADING.matcher(Files.readString(page));
            while (heading.find()) {
                anchors.add(
                        heading.group(1)
                                .trim()
                                .toLowerCase(Locale.ROOT)
                                .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                                .replace(' ', '-'));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return anchors;
    }
}
