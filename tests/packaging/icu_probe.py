"""What Qt asks of ICU, printed: collation in six locales, time-zone names in four,
converters, locale case mapping. Run by test_slimming.py against the full ICU data and
against the subset the bundle ships."""

from PySide6.QtCore import QCollator, QLocale, QStringDecoder, QStringEncoder, QTimeZone

WORDS = ["Äpfel", "apple", "Zebra", "zürich", "Ångström", "école", "eclair", "Œuvre", "日本", "ñandú", "nube"]  # fmt: skip

out: list[object] = []
for name in ("de_DE", "sv_SE", "fr_FR", "es_ES", "ja_JP", "en_US"):
    collator = QCollator(QLocale(name))
    out.append((name, sorted(WORDS, key=collator.sortKey)))
paris = QTimeZone(b"Europe/Paris")
for name in ("en_US", "fr_FR", "de_DE", "ja_JP"):
    locale = QLocale(name)
    out.append(
        (
            name,
            paris.displayName(QTimeZone.TimeType.StandardTime, QTimeZone.NameType.LongName, locale),
            paris.displayName(
                QTimeZone.TimeType.DaylightTime, QTimeZone.NameType.ShortName, locale
            ),
        )
    )
for codec in ("Shift_JIS", "GB18030", "EUC-KR", "Big5", "windows-1251", "KOI8-R"):
    out.append((codec, QStringDecoder(codec).isValid(), QStringEncoder(codec).isValid()))
out.append((QLocale("tr_TR").toUpper("istanbul"), QLocale("de_DE").toUpper("straße")))
out.append(len(QStringDecoder.availableCodecs()))
print(repr(out))
