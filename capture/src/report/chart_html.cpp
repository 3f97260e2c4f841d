// SPDX-License-Identifier: GPL-2.0-or-later
// chart_html.cpp - --chart=html: one self-contained page (inline CSS and
// SVG, no scripts, no external resources) that any browser opens offline.
// Hovering an arrow shows its details through the SVG <title> element.
#include <algorithm>
#include <cstdio>

#include "chart.h"
#include "text_escape.h"

namespace lnetcap::report {
namespace {

constexpr int kTimeColumn = 110;  // left margin holding the time of each row
constexpr int kLaneWidth = 240;
constexpr int kHeader = 60;
constexpr int kRow = 26;

int lane_x(std::size_t i) { return kTimeColumn + kLaneWidth / 2 + static_cast<int>(i) * kLaneWidth; }

const char* css_class(ArrowKind k) {
  switch (k) {
    case ArrowKind::kRequest: return "req";
    case ArrowKind::kReply: return "rep";
    case ArrowKind::kError: return "err";
    case ArrowKind::kEarly: return "early";
    case ArrowKind::kLnet: return "lnet";
  }
  return "lnet";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

void participant_boxes(std::string& svg, const ChartModel& m, int y) {
  for (std::size_t i = 0; i < m.participants.size(); ++i) {
    const int x = lane_x(i);
    svg += "<rect class=\"box\" x=\"" + std::to_string(x - kLaneWidth / 2 + 10) + "\" y=\"" +
           std::to_string(y) + "\" width=\"" + std::to_string(kLaneWidth - 20) +
           "\" height=\"30\" rx=\"4\"/>";
    svg += "<text class=\"name\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y + 20) +
           "\">" + xml_escape(m.participants[i]) + "</text>\n";
  }
}

}  // namespace

std::string render_html(const ChartModel& m) {
  const int lanes = std::max<int>(1, static_cast<int>(m.participants.size()));
  const int width = kTimeColumn + lanes * kLaneWidth + 20;
  const int body_top = kHeader + 10;
  const int rows = static_cast<int>(m.arrows.size()) + (m.omitted ? 1 : 0);
  const int height = body_top + rows * kRow + kHeader + 20;

  std::string svg;
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) +
         " " + std::to_string(height) + "\">\n";
  svg += "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
         "markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">"
         "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"context-stroke\"/></marker></defs>\n";
  participant_boxes(svg, m, 10);
  for (std::size_t i = 0; i < m.participants.size(); ++i) {
    const std::string x = std::to_string(lane_x(i));
    svg += "<line class=\"life\" x1=\"" + x + "\" y1=\"40\" x2=\"" + x + "\" y2=\"" +
           std::to_string(height - kHeader) + "\"/>\n";
  }
  int y = body_top;
  for (const Arrow& a : m.arrows) {
    y += kRow;
    const int x1 = lane_x(a.from), x2 = lane_x(a.to);
    const double t = a.ts_ns >= m.first_ts_ns ? (a.ts_ns - m.first_ts_ns) / 1e9 : 0;
    svg += "<g class=\"" + std::string(css_class(a.kind)) + "\"><title>" + xml_escape(num(t)) +
           " s: " + xml_escape(m.participants[a.from]) + " -> " +
           xml_escape(m.participants[a.to]) + ": " + xml_escape(a.detail) + "</title>";
    svg += "<text class=\"time\" x=\"6\" y=\"" + std::to_string(y + 4) + "\">" + num(t) + "</text>";
    if (x1 == x2) {
      // A message to oneself (0@lo): a small loop to the right.
      svg += "<path d=\"M" + std::to_string(x1) + "," + std::to_string(y - 6) + " h30 v12 h-30\" "
             "fill=\"none\" marker-end=\"url(#head)\"/>";
      svg += "<text class=\"label\" x=\"" + std::to_string(x1 + 36) + "\" y=\"" +
             std::to_string(y + 4) + "\" text-anchor=\"start\">" + xml_escape(a.label) + "</text>";
    } else {
      svg += "<line x1=\"" + std::to_string(x1) + "\" y1=\"" + std::to_string(y) + "\" x2=\"" +
             std::to_string(x2) + "\" y2=\"" + std::to_string(y) + "\" marker-end=\"url(#head)\"/>";
      svg += "<text class=\"label\" x=\"" + std::to_string((x1 + x2) / 2) + "\" y=\"" +
             std::to_string(y - 4) + "\">" + xml_escape(a.label) + "</text>";
    }
    svg += "</g>\n";
  }
  if (m.omitted) {
    y += kRow;
    svg += "<text class=\"note\" x=\"" + std::to_string(kTimeColumn) + "\" y=\"" +
           std::to_string(y) + "\">" + std::to_string(m.omitted) +
           " more messages not shown (the chart stops at " + std::to_string(m.max_arrows) +
           " arrows; narrow it with a filter)</text>\n";
  }
  participant_boxes(svg, m, height - kHeader + 10);
  svg += "</svg>\n";

  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>lnetcap sequence chart</title>\n<style>\n"
      "body { font-family: sans-serif; margin: 1em; }\n"
      "svg text { font-family: monospace; font-size: 12px; }\n"
      ".box { fill: #eef3fb; stroke: #4a6fa5; }\n"
      ".name { text-anchor: middle; font-weight: bold; }\n"
      ".life { stroke: #999; stroke-dasharray: 4 4; }\n"
      ".label { text-anchor: middle; }\n"
      ".time { fill: #666; }\n"
      "g line, g path { stroke-width: 1.5; }\n"
      ".req line, .req path { stroke: #1f4e9c; }\n"
      ".rep line, .rep path { stroke: #2e7d32; stroke-dasharray: 6 3; }\n"
      ".err line, .err path { stroke: #c62828; stroke-dasharray: 6 3; }\n"
      ".err text.label { fill: #c62828; }\n"
      ".early line, .early path { stroke: #8d6e63; stroke-dasharray: 2 3; }\n"
      ".lnet line, .lnet path { stroke: #888; stroke-dasharray: 1 3; }\n"
      ".lnet text.label { fill: #666; }\n"
      ".note { fill: #a15c00; font-style: italic; }\n"
      "</style>\n</head>\n<body>\n<h1>lnetcap sequence chart</h1>\n";
  page += "<p>" + std::to_string(m.arrows.size()) + " messages between " +
          std::to_string(m.participants.size()) +
          " participants; times in seconds from the first message. Solid: request, dashed "
          "green: reply, red: error reply, dotted grey: LNet traffic such as bulk data. Hover an "
          "arrow for details.";
  if (m.omitted)
    page += " <strong>" + std::to_string(m.omitted) + " more messages are not shown.</strong>";
  page += "</p>\n" + svg + "</body>\n</html>\n";
  return page;
}

}  // namespace lnetcap::report
