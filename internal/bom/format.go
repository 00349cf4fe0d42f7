package bom

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ItemsCSV renders the items as RFC 4180 text: category, sku, description, quantity, unit_price,
// cost. An unpriced item has empty price and cost fields, never a zero.
func (b BOM) ItemsCSV() (string, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	price := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', 2, 64)
	}
	if err := w.Write([]string{"category", "sku", "description", "quantity", "unit_price", "cost"}); err != nil {
		return "", err
	}
	for _, it := range b.Items {
		if err := w.Write([]string{it.Category, it.SKU, it.Description, strconv.Itoa(it.Quantity), price(it.UnitPrice), price(it.Cost)}); err != nil {
			return "", err
		}
	}
	w.Flush()
	return buf.String(), w.Error()
}

func unit(u int) string {
	if u == 0 {
		return ""
	}
	return strconv.Itoa(u)
}

// JSON renders the BOM (items, total_cost, unpriced, counts, warnings) as indented JSON; unit
// prices and costs of unpriced items are null. The cabling plan is CablingCSV.
func (b BOM) JSON() ([]byte, error) {
	if b.Items == nil {
		b.Items = []Item{}
	}
	if b.Unpriced == nil {
		b.Unpriced = []string{}
	}
	if b.Warnings == nil {
		b.Warnings = []string{}
	}
	return json.MarshalIndent(b, "", "  ")
}

// Markdown renders the BOM as a table with the priced total, the unpriced SKUs and the
// warnings.
func (b BOM) Markdown() string {
	var s strings.Builder
	s.WriteString("| Category | SKU | Description | Quantity | Unit price (USD) | Cost (USD) |\n")
	s.WriteString("|---|---|---|---:|---:|---:|\n")
	for _, it := range b.Items {
		price, cost := "unpriced", "unpriced"
		if it.UnitPrice != nil {
			price = Money(*it.UnitPrice)
		}
		if it.Cost != nil {
			cost = Money(*it.Cost)
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %d | %s | %s |\n", it.Category, mdEscape(it.SKU), mdEscape(it.Description), it.Quantity, price, cost)
	}
	fmt.Fprintf(&s, "\n**Total of priced items:** USD %s\n", Money(b.TotalCost))
	if len(b.Unpriced) > 0 {
		q := make([]string, len(b.Unpriced))
		for i, u := range b.Unpriced {
			q[i] = "`" + u + "`"
		}
		fmt.Fprintf(&s, "\n**Unpriced** (no sourced price in the catalog; not in the total): %s\n", strings.Join(q, ", "))
	}
	c := b.Counts
	fmt.Fprintf(&s, "\n%d switches, %d nodes, %d HCAs; %d links on %d cables; transceivers: %d switch, %d node, %d single-port.\n",
		c.Switches, c.Nodes, c.HCAs, c.Links, c.Cables, c.SwitchTransceivers, c.NodeTransceivers, c.HCATransceivers)
	if b.BeyondFloor != nil {
		s.WriteString("\n" + b.BeyondFloor.Markdown())
	}
	if len(b.Warnings) > 0 {
		s.WriteString("\n**Warnings**\n\n")
		for _, w := range b.Warnings {
			fmt.Fprintf(&s, "- %s\n", mdEscape(w))
		}
	}
	return s.String()
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Money formats USD with thousands separators and cents: 4,080,000.00, -85,000.00. It is the one
// money format (plan.USD prefixes it; the CI gate's jq writes the same, held to it by
// TestCIPlanGateMoney). Cents are rounded half away from zero on v*100, so a price written 2.675
// reads 2.68, as a reader of the catalog expects, not the 2.67 of its binary value.
func Money(v float64) string {
	c := math.Round(math.Abs(v) * 100)
	whole := group(strconv.FormatFloat(math.Floor(c/100), 'f', 0, 64))
	if v < 0 && c != 0 {
		whole = "-" + whole
	}
	return fmt.Sprintf("%s.%02d", whole, int(math.Mod(c, 100)))
}

// Count writes a count for people with thousands separators, as Money writes its whole part:
// 16,384, -2,048.
func Count(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + group(s[1:])
	}
	return group(s)
}

// group puts a comma between each three digits from the right: 4080000 is 4,080,000.
func group(digits string) string {
	out := make([]byte, 0, len(digits)+len(digits)/3)
	for i, d := range []byte(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, d)
	}
	return string(out)
}
